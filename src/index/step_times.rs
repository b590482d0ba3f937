//! Where the writer's time goes, step by step: what `tonindex bench` reports
//! to show which part of the serial writer traces cost.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Wall time of each step of [`super::Indexer::apply`], summed over the
/// units applied. Where rows are encoded in parallel, `traces`, `rows` and
/// `classify` run on the encoding threads beside the writer's own work
/// (a unit's traces beside the next unit), so the steps can add up to more
/// than the writer's applying time; what the writer waits for them is
/// `rows_wait` and `traces_wait`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StepTimes {
    /// Trace assembly and the trace rows (classification apart: `classify`).
    pub traces: Duration,
    /// Of `traces`: settling the traces (listing them, gathering complete
    /// ones' transactions), the part that runs in parallel where rows are
    /// encoded so.
    pub settle: Duration,
    /// The transactions' and messages' rows.
    pub rows: Duration,
    /// Of the writer's time, where rows are encoded in parallel: waiting
    /// for the unit's rows once its own work on the unit is done.
    pub rows_wait: Duration,
    /// `Db::write` of the unit's batch.
    pub commit: Duration,
    /// `Db::write` of the last unit's traces, a batch of their own: on the
    /// encoding threads, beside the writer's work on the unit, where rows
    /// are encoded in parallel.
    pub trace_commit: Duration,
    /// Classifying complete traces.
    pub classify: Duration,
    /// Of the writer's time, where rows are encoded in parallel: waiting
    /// for the last unit's traces (assembly and classification) before
    /// committing.
    pub traces_wait: Duration,
    /// Releasing the states no kept masterchain block needs, after a
    /// commit (see [`super::retention`]).
    pub release: Duration,
}

impl std::ops::AddAssign for StepTimes {
    fn add_assign(&mut self, o: Self) {
        self.traces += o.traces;
        self.settle += o.settle;
        self.rows += o.rows;
        self.rows_wait += o.rows_wait;
        self.commit += o.commit;
        self.trace_commit += o.trace_commit;
        self.classify += o.classify;
        self.traces_wait += o.traces_wait;
        self.release += o.release;
    }
}

/// [`StepTimes`] kept by an indexer that is applied through `&self`.
#[derive(Debug, Default)]
pub(super) struct StepClock {
    traces: AtomicU64,
    settle: AtomicU64,
    rows: AtomicU64,
    rows_wait: AtomicU64,
    commit: AtomicU64,
    trace_commit: AtomicU64,
    classify: AtomicU64,
    traces_wait: AtomicU64,
    release: AtomicU64,
}

/// Which step a timed section belongs to.
#[derive(Clone, Copy)]
pub(super) enum Step {
    Traces,
    Settle,
    Rows,
    RowsWait,
    Commit,
    TraceCommit,
    Classify,
    TracesWait,
    Release,
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
            Step::Settle => &self.settle,
            Step::Rows => &self.rows,
            Step::RowsWait => &self.rows_wait,
            Step::Commit => &self.commit,
            Step::TraceCommit => &self.trace_commit,
            Step::Classify => &self.classify,
            Step::TracesWait => &self.traces_wait,
            Step::Release => &self.release,
        };
        counter.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
    }

    pub(super) fn read(&self) -> StepTimes {
        let d = |a: &AtomicU64| Duration::from_nanos(a.load(Ordering::Relaxed));
        StepTimes {
            traces: d(&self.traces),
            settle: d(&self.settle),
            rows: d(&self.rows),
            rows_wait: d(&self.rows_wait),
            commit: d(&self.commit),
            trace_commit: d(&self.trace_commit),
            classify: d(&self.classify),
            traces_wait: d(&self.traces_wait),
            release: d(&self.release),
        }
    }
}
