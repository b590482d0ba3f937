//! Where the writer's time goes, step by step: what `tonindex bench` reports
//! to show which part of the serial writer traces cost.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Wall time of each step of [`super::Indexer::apply`], summed over the
/// units applied. Where rows are encoded in parallel, `traces` and `rows`
/// run on the encoding threads beside the writer's own work on the unit
/// (states, contracts), so the steps can add up to more than the writer's
/// applying time; what the writer waits for them is `traces_wait`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StepTimes {
    /// Trace assembly and the trace rows (classification apart: `classify`).
    pub traces: Duration,
    /// Of the writer's time, where rows are encoded in parallel: waiting
    /// for assembly and the rows' encoding to end once its own work on the
    /// unit is done.
    pub traces_wait: Duration,
    /// Of `traces`: settling the traces (listing them, gathering complete
    /// ones' transactions), the part that runs in parallel where rows are
    /// encoded so.
    pub settle: Duration,
    /// The transactions' and messages' rows.
    pub rows: Duration,
    /// `Db::write` of the unit's batch.
    pub commit: Duration,
    /// Classifying complete traces: on the encoding pool beside the
    /// writer's work on the next unit where rows are encoded in parallel
    /// (then not part of the writer's time), else by the writer.
    pub classify: Duration,
    /// Of the writer's time: waiting for that classification to end.
    pub classify_wait: Duration,
}

impl std::ops::AddAssign for StepTimes {
    fn add_assign(&mut self, o: Self) {
        self.traces += o.traces;
        self.traces_wait += o.traces_wait;
        self.settle += o.settle;
        self.rows += o.rows;
        self.commit += o.commit;
        self.classify += o.classify;
        self.classify_wait += o.classify_wait;
    }
}

/// [`StepTimes`] kept by an indexer that is applied through `&self`.
#[derive(Debug, Default)]
pub(super) struct StepClock {
    traces: AtomicU64,
    traces_wait: AtomicU64,
    settle: AtomicU64,
    rows: AtomicU64,
    commit: AtomicU64,
    classify: AtomicU64,
    classify_wait: AtomicU64,
}

/// Which step a timed section belongs to.
#[derive(Clone, Copy)]
pub(super) enum Step {
    Traces,
    TracesWait,
    Settle,
    Rows,
    Commit,
    Classify,
    ClassifyWait,
}

impl StepClock {
    /// Runs `f`, adding its wall time to `step`.
    pub(super) fn time<R>(&self, step: Step, f: impl FnOnce() -> R) -> R {
        let t = Instant::now();
        let r = f();
        self.add(step, t.elapsed());
        r
    }

    /// Adds `d` to `step`.
    pub(super) fn add(&self, step: Step, d: Duration) {
        let counter = match step {
            Step::Traces => &self.traces,
            Step::TracesWait => &self.traces_wait,
            Step::Settle => &self.settle,
            Step::Rows => &self.rows,
            Step::Commit => &self.commit,
            Step::Classify => &self.classify,
            Step::ClassifyWait => &self.classify_wait,
        };
        counter.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
    }

    pub(super) fn read(&self) -> StepTimes {
        let d = |a: &AtomicU64| Duration::from_nanos(a.load(Ordering::Relaxed));
        StepTimes {
            traces: d(&self.traces),
            traces_wait: d(&self.traces_wait),
            settle: d(&self.settle),
            rows: d(&self.rows),
            commit: d(&self.commit),
            classify: d(&self.classify),
            classify_wait: d(&self.classify_wait),
        }
    }
}
