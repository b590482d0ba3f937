//! What each lite server of a global config last showed: its masterchain
//! tip and whether it keeps old blocks. Every server is asked for its
//! masterchain info once a second, and whether it has masterchain block 1
//! every two minutes (an archival node keeps every block; others drop
//! blocks older than a few days), as toncenter's v2 servers watch their
//! liteservers (spec v2 §2.7).
//!
//! From that come the *consensus* seqno (`getConsensusBlock`: the highest
//! tip among the servers that answer), which servers are *alive* (their tip
//! at most [`ALIVE_WITHIN`] blocks below it), and the order in which reads,
//! sends and the follower try the servers: alive ones first, and for a
//! block more than `archival_after` masterchain blocks below the consensus,
//! archival ones first.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ton_liteapi::client::LiteClient;
use ton_liteapi::tl::common::BlockId as LiteBlockId;
use ton_liteapi::types::LiteError;

use super::LiteServerAddr;

/// How often each server is asked for its masterchain info.
pub const POLL_EVERY: Duration = Duration::from_secs(1);
/// How often each server is asked whether it keeps old blocks.
pub const ARCHIVAL_PROBE_EVERY: Duration = Duration::from_secs(120);
/// A server whose tip is at most this many blocks below the consensus is
/// alive (as the C++ v2 server counts it).
pub const ALIVE_WITHIN: u32 = 3;
/// A server that has not answered for this long is not counted at all.
pub const SILENT_AFTER: Duration = Duration::from_secs(10);
/// How long one question to one server may take.
const QUERY_TIMEOUT: Duration = Duration::from_secs(3);
/// Blocks more than this far below the consensus are asked of archival
/// servers first by default (toncenter's Python server's figure).
pub const ARCHIVAL_AFTER: u32 = 2000;

/// What one server last showed.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    /// Its newest masterchain seqno and when it said so.
    tip: Option<(u32, Instant)>,
    /// Whether it had masterchain block 1 when last asked.
    archival: Option<bool>,
    /// Asked at least once (answered or not).
    probed: bool,
}

/// The servers' tips, kept current by one task per server.
#[derive(Debug)]
pub struct Tips {
    servers: Vec<LiteServerAddr>,
    seen: Mutex<Vec<Seen>>,
    archival_after: u32,
}

impl Tips {
    /// Starts watching `servers` on `runtime`; the tasks end when the
    /// last handle to the returned value is dropped.
    pub fn start(
        servers: Vec<LiteServerAddr>,
        archival_after: u32,
        runtime: &tokio::runtime::Handle,
    ) -> Arc<Self> {
        let tips = Arc::new(Self::new(servers, archival_after));
        for i in 0..tips.servers.len() {
            runtime.spawn(watch(Arc::downgrade(&tips), i));
        }
        tips
    }

    /// Tips with nothing seen yet and nobody watching (tests; `start`).
    pub fn new(servers: Vec<LiteServerAddr>, archival_after: u32) -> Self {
        let seen = Mutex::new(vec![Seen::default(); servers.len()]);
        Self {
            servers,
            seen,
            archival_after,
        }
    }

    /// The servers, in the config's order.
    pub fn servers(&self) -> &[LiteServerAddr] {
        &self.servers
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn update(&self, i: usize, f: impl FnOnce(&mut Seen)) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut seen[i]);
        seen[i].probed = true;
    }

    /// The highest masterchain seqno among the servers that have answered
    /// within [`SILENT_AFTER`]; `None` when none has.
    pub fn consensus(&self) -> Option<u32> {
        consensus(&self.seen())
    }

    /// How many servers have answered within [`SILENT_AFTER`].
    pub fn answering(&self) -> usize {
        self.seen()
            .iter()
            .filter(|s| s.tip.is_some_and(|(_, at)| at.elapsed() < SILENT_AFTER))
            .count()
    }

    /// Waits until every server has been asked once, or `budget` passes:
    /// a pool that starts picks its first server knowing them.
    pub async fn first_round(&self, budget: Duration) {
        let until = Instant::now() + budget;
        while Instant::now() < until && !self.seen().iter().all(|s| s.probed) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The servers' indices in the order to try them for a question about
    /// masterchain block `seqno` (`None`: about the newest): those whose
    /// answers are best placed first, the config's order among equals.
    pub fn order(&self, seqno: Option<u32>) -> Vec<usize> {
        let seen = self.seen();
        let mut order: Vec<usize> = (0..seen.len()).collect();
        order.sort_by_key(|&i| rank(&seen, i, seqno, self.archival_after));
        order
    }

    /// Whether server `a` is better placed than server `b` for masterchain
    /// block `seqno`.
    pub fn better(&self, a: usize, b: usize, seqno: Option<u32>) -> bool {
        let seen = self.seen();
        rank(&seen, a, seqno, self.archival_after) < rank(&seen, b, seqno, self.archival_after)
    }
}

/// The highest tip among servers heard from lately.
fn consensus(seen: &[Seen]) -> Option<u32> {
    seen.iter()
        .filter_map(|s| s.tip)
        .filter(|(_, at)| at.elapsed() < SILENT_AFTER)
        .map(|(seqno, _)| seqno)
        .max()
}

/// Lower is better: for an old block, archival servers that answer, then
/// those not known to lack it, then the rest that answer; for a recent
/// one, alive servers, then those that answer; silent ones last (still
/// tried: a server down a second ago may be back).
fn rank(seen: &[Seen], i: usize, seqno: Option<u32>, archival_after: u32) -> u8 {
    let consensus = consensus(seen);
    let s = &seen[i];
    let Some(tip) = s
        .tip
        .filter(|(_, at)| at.elapsed() < SILENT_AFTER)
        .map(|(t, _)| t)
    else {
        return 9;
    };
    let old = match (seqno, consensus) {
        (Some(seqno), Some(c)) => c.saturating_sub(seqno) > archival_after,
        _ => false,
    };
    let alive = consensus.is_none_or(|c| tip + ALIVE_WITHIN >= c);
    match (old, s.archival, alive) {
        (true, Some(true), _) => 0,
        (true, None, _) => 1,
        (true, Some(false), _) => 2,
        (false, _, true) => 0,
        (false, _, false) => 1,
    }
}

/// Watches server `i` until the tips are dropped.
async fn watch(tips: std::sync::Weak<Tips>, i: usize) {
    let Some(server) = tips.upgrade().map(|t| t.servers[i].clone()) else {
        return;
    };
    let mut client: Option<LiteClient> = None;
    let mut probed_archival: Option<Instant> = None;
    loop {
        let Some(t) = tips.upgrade() else { return };
        if client.is_none() {
            match tokio::time::timeout(QUERY_TIMEOUT, LiteClient::connect(server.addr, server.key))
                .await
            {
                Ok(Ok(c)) => client = Some(c),
                _ => t.update(i, |_| {}),
            }
        }
        if let Some(c) = client.as_mut() {
            match tokio::time::timeout(QUERY_TIMEOUT, c.get_masterchain_info()).await {
                Ok(Ok(info)) => {
                    let due = probed_archival.is_none_or(|at| at.elapsed() >= ARCHIVAL_PROBE_EVERY);
                    let archival = if due {
                        let probe = archival_probe(c).await;
                        if probe.is_some() {
                            probed_archival = Some(Instant::now());
                        }
                        probe
                    } else {
                        None
                    };
                    t.update(i, |s| {
                        s.tip = Some((info.last.seqno, Instant::now()));
                        if archival.is_some() {
                            s.archival = archival;
                        }
                    });
                }
                _ => {
                    client = None;
                    t.update(i, |_| {});
                }
            }
        }
        drop(t);
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// Whether the server has masterchain block 1; `None` when it did not
/// answer either way.
async fn archival_probe(client: &mut LiteClient) -> Option<bool> {
    let id = LiteBlockId {
        workchain: -1,
        shard: 0x8000_0000_0000_0000,
        seqno: 1,
    };
    let answer = tokio::time::timeout(
        QUERY_TIMEOUT,
        client.lookup_block(
            (),
            id,
            Some(()),
            None,
            None,
            false,
            false,
            false,
            false,
            false,
        ),
    )
    .await;
    match answer {
        Ok(Ok(_)) => Some(true),
        Ok(Err(LiteError::ServerError(_))) => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tips(n: usize) -> Tips {
        let server = LiteServerAddr {
            addr: "127.0.0.1:1".parse().unwrap(),
            key: [0; 32],
        };
        Tips::new(vec![server; n], 100)
    }

    #[test]
    fn consensus_alive_and_archival_order() {
        let t = tips(4);
        assert_eq!(t.consensus(), None);
        // Nothing heard: the config's order.
        assert_eq!(t.order(None), vec![0, 1, 2, 3]);
        let now = Instant::now();
        t.update(0, |s| s.tip = Some((990, now))); // behind
        t.update(1, |s| {
            s.tip = Some((1000, now));
            s.archival = Some(false);
        });
        t.update(2, |s| {
            s.tip = Some((998, now));
            s.archival = Some(true);
        });
        // Silent for long: its tip is not counted.
        t.update(3, |s| s.tip = Some((5000, now - SILENT_AFTER * 2)));
        assert_eq!(t.consensus(), Some(1000));
        assert_eq!(t.order(None), vec![1, 2, 0, 3]);
        assert_eq!(t.order(Some(999)), vec![1, 2, 0, 3]);
        // More than 100 below: the archival server first, the one known
        // to lack old blocks after the one not yet asked.
        assert_eq!(t.order(Some(800)), vec![2, 0, 1, 3]);
        assert!(t.better(1, 0, None));
        assert!(!t.better(1, 2, None));
        assert!(t.better(2, 1, Some(1)));
    }
}
