//! `/traces` and `/actions` listings against a brute-force scan of the
//! stored rows: random windows, filters, sorts and offsets must give
//! exactly the rows, in v3's order (by lt, or by time with a time filter),
//! that filtering every settled trace gives — however selective the
//! filter, however deep the page.

use std::collections::{BTreeSet, HashMap};

use tonindex::api::encoding::raw_upper;
use tonindex::api::v3::actions::{supported_types, visible};
use tonindex_model::{ActionRecord, Address, BlockRecord, Hash, TraceRecord, TransactionRecord};
use tonindex_storage::tables::{Actions, Blocks, Traces, Transactions};
use tonindex_storage::Db;

use crate::common::api::{b64, fixture, get, q};

/// What the scan read: every settled trace, its accounts (from its
/// transactions) and its actions.
struct Scan {
    traces: Vec<TraceRecord>,
    accounts: HashMap<Hash, BTreeSet<Address>>,
    actions: HashMap<Hash, Vec<ActionRecord>>,
}

fn scan() -> Scan {
    let scratch = tempfile::tempdir().unwrap();
    let db = Db::open_follower(fixture().db_path(), scratch.path()).unwrap();
    let r = db.reader();
    let traces: Vec<TraceRecord> = r
        .prefix::<Traces>(&[], false)
        .map(|x| x.unwrap().1)
        .filter(|t| t.pending_messages == 0)
        .collect();
    let mut accounts: HashMap<Hash, BTreeSet<Address>> = HashMap::new();
    let rows: Vec<(Hash, u64)> = r
        .prefix::<Traces>(&[], false)
        .flat_map(|x| {
            let (id, t) = x.unwrap();
            t.tx_ids.into_iter().map(move |tx| (id, tx))
        })
        .collect();
    let ids: Vec<u64> = rows.iter().map(|(_, id)| *id).collect();
    let records = tonindex::query::transactions::tx_records(&r, &ids).unwrap();
    for ((trace, _), tx) in rows.iter().zip(records) {
        accounts.entry(*trace).or_default().insert(tx.account);
    }
    let mut actions: HashMap<Hash, Vec<ActionRecord>> = HashMap::new();
    let stored = r
        .prefix::<Actions>(&[], false)
        .map(|x| x.unwrap().1)
        .collect();
    for a in tonindex::query::traces::action_records(&r, stored).unwrap() {
        actions.entry(a.trace_id).or_default().push(a);
    }
    Scan {
        traces,
        accounts,
        actions,
    }
}

/// A small deterministic generator (xorshift64*), so a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }
}

/// One random request's filters.
#[derive(Debug, Default)]
struct Case {
    account: Option<Address>,
    lt: Option<(u64, u64)>,
    utime: Option<(u32, u32)>,
    types: Vec<String>,
    /// `exclude_action_type` (sent to `/actions` only).
    exclude: Vec<String>,
    desc: bool,
    limit: usize,
    offset: usize,
}

impl Case {
    fn random(rng: &mut Rng, s: &Scan, accounts: &[Address], kinds: &[String]) -> Self {
        let mut lts: Vec<u64> = s.traces.iter().map(|t| t.end_lt).collect();
        let mut utimes: Vec<u32> = s.traces.iter().map(|t| t.end_utime).collect();
        lts.sort_unstable();
        utimes.sort_unstable();
        let window = |rng: &mut Rng, v: &[u64]| {
            let (a, b) = (*rng.pick(v), *rng.pick(v));
            (a.min(b), a.max(b))
        };
        let mut case = Case {
            desc: rng.chance(50),
            limit: 1 + rng.below(12),
            offset: if rng.chance(30) { rng.below(40) } else { 0 },
            ..Case::default()
        };
        if rng.chance(60) {
            case.account = Some(*rng.pick(accounts));
        }
        if rng.chance(30) {
            case.lt = Some(window(rng, &lts));
        }
        if rng.chance(40) {
            let u: Vec<u64> = utimes.iter().map(|&u| u64::from(u)).collect();
            let (a, b) = window(rng, &u);
            case.utime = Some((a as u32, b as u32));
        }
        if rng.chance(50) {
            case.types.push(rng.pick(kinds).clone());
            if rng.chance(30) {
                case.types.push(rng.pick(kinds).clone());
            }
        }
        if rng.chance(30) {
            case.exclude.push(rng.pick(kinds).clone());
            if rng.chance(30) {
                case.exclude.push(rng.pick(kinds).clone());
            }
        }
        case
    }

    fn query(&self) -> String {
        let mut p = vec![
            format!("limit={}", self.limit),
            format!("offset={}", self.offset),
            format!("sort={}", if self.desc { "desc" } else { "asc" }),
        ];
        if let Some(a) = &self.account {
            p.push(format!("account={}", q(&raw_upper(a))));
        }
        if let Some((lo, hi)) = self.lt {
            p.push(format!("start_lt={lo}&end_lt={hi}"));
        }
        if let Some((lo, hi)) = self.utime {
            p.push(format!("start_utime={lo}&end_utime={hi}"));
        }
        for t in &self.types {
            p.push(format!("action_type={t}"));
        }
        p.join("&")
    }

    /// The `/actions` query: [`Self::query`] with the exclusions.
    fn actions_query(&self) -> String {
        let mut q = self.query();
        for t in &self.exclude {
            q.push_str(&format!("&exclude_action_type={t}"));
        }
        q
    }

    fn trace_passes(&self, t: &TraceRecord) -> bool {
        self.lt.is_none_or(|(lo, hi)| (lo..=hi).contains(&t.end_lt))
            && self
                .utime
                .is_none_or(|(lo, hi)| (lo..=hi).contains(&t.end_utime))
    }

    fn page<T>(&self, mut rows: Vec<T>) -> Vec<T> {
        if self.desc {
            rows.reverse();
        }
        rows.into_iter()
            .skip(self.offset)
            .take(self.limit)
            .collect()
    }
}

fn ids(reply: &serde_json::Value, list: &str, field: &str) -> Vec<String> {
    reply[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {reply}"))
        .iter()
        .map(|x| x[field].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn trace_and_action_pages_equal_a_scan_of_every_trace() {
    let s = scan();
    let mut sorted = s.traces.clone();
    sorted.sort_by_key(|t| (t.end_lt, t.trace_id));
    let accounts: Vec<Address> = s
        .accounts
        .values()
        .flatten()
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let kinds: Vec<String> = s
        .actions
        .values()
        .flatten()
        .map(|a| a.kind.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(
        sorted.len() > 100 && kinds.len() > 3,
        "the fixture is too small to tell"
    );
    let latest = supported_types(&[]).unwrap();
    let mut rng = Rng(0x5eed_1234_abcd_0042);
    let mut nonempty = (0, 0);
    for _ in 0..300 {
        let case = Case::random(&mut rng, &s, &accounts, &kinds);
        // v3's order: by end lt, or by end time with a time filter.
        let by_utime = case.utime.is_some();
        let trace_end = |t: &TraceRecord| {
            if by_utime {
                u64::from(t.end_utime)
            } else {
                t.end_lt
            }
        };
        let action_end = |a: &ActionRecord| {
            if by_utime {
                u64::from(a.end_utime)
            } else {
                a.end_lt
            }
        };
        let mut sorted = sorted.clone();
        sorted.sort_by_key(|t| (trace_end(t), t.trace_id));
        // Traces: the account took part (one of its transactions).
        let expected: Vec<String> = case.page(
            sorted
                .iter()
                .filter(|t| case.trace_passes(t))
                .filter(|t| {
                    case.account
                        .is_none_or(|a| s.accounts.get(&t.trace_id).is_some_and(|x| x.contains(&a)))
                })
                .map(|t| b64(&t.trace_id))
                .collect(),
        );
        let reply = get(&format!("/api/v3/traces?{}", case.query()));
        assert_eq!(reply.status, 200, "{case:?}: {}", reply.json);
        assert_eq!(
            ids(&reply.json, "traces", "trace_id"),
            expected,
            "traces {case:?}"
        );
        nonempty.0 += usize::from(!expected.is_empty());

        // Actions: of the account, of the types named (else those a
        // client of the latest types sees), in trace then action order.
        let mut rows: Vec<String> = Vec::new();
        for t in sorted.iter().filter(|t| case.trace_passes(t)) {
            let mut acts: Vec<&ActionRecord> = s
                .actions
                .get(&t.trace_id)
                .map(|v| v.iter().collect())
                .unwrap_or_default();
            acts.retain(|a| {
                (if case.types.is_empty() {
                    visible(a, &latest)
                } else {
                    case.types.contains(&a.kind)
                }) && !case.exclude.contains(&a.kind)
                    && case.account.is_none_or(|acc| a.accounts.contains(&acc))
            });
            acts.sort_by_key(|a| (action_end(a), a.action_id));
            rows.extend(acts.iter().map(|a| b64(&a.action_id)));
        }
        let expected = case.page(rows);
        let reply = get(&format!("/api/v3/actions?{}", case.actions_query()));
        assert_eq!(reply.status, 200, "{case:?}: {}", reply.json);
        assert_eq!(
            ids(&reply.json, "actions", "action_id"),
            expected,
            "actions {case:?}"
        );
        nonempty.1 += usize::from(!expected.is_empty());
    }
    // The cases reached rows, not only empty pages.
    assert!(nonempty.0 > 100 && nonempty.1 > 60, "{nonempty:?}");
}

#[test]
fn transaction_and_block_pages_by_time_equal_a_scan() {
    let scratch = tempfile::tempdir().unwrap();
    let db = Db::open_follower(fixture().db_path(), scratch.path()).unwrap();
    let r = db.reader();
    let tx_ids: Vec<u64> = r
        .prefix::<Transactions>(&[], false)
        .map(|x| x.unwrap().0)
        .collect();
    let txs: Vec<TransactionRecord> =
        tonindex::query::transactions::tx_records(&r, &tx_ids).unwrap();
    let blocks: Vec<BlockRecord> = r
        .prefix::<Blocks>(&[], false)
        .map(|x| x.unwrap().1)
        .collect();
    assert!(
        txs.len() > 500 && blocks.len() > 50,
        "the fixture is too small to tell"
    );
    let mut nows: Vec<u32> = txs.iter().map(|t| t.now).collect();
    nows.sort_unstable();
    let mut lts: Vec<u64> = txs.iter().map(|t| t.lt).collect();
    lts.sort_unstable();
    let mut utimes: Vec<u32> = blocks.iter().map(|b| b.gen_utime).collect();
    utimes.sort_unstable();
    let mut rng = Rng(0x0bad_cafe_1234_5678);
    let mut nonempty = (0, 0, 0);
    for _ in 0..200 {
        let desc = rng.chance(50);
        let (limit, offset) = (
            1 + rng.below(15),
            if rng.chance(30) { rng.below(50) } else { 0 },
        );
        let sort = if desc { "desc" } else { "asc" };
        let paging = format!("limit={limit}&offset={offset}&sort={sort}");
        let page = |mut rows: Vec<String>| -> Vec<String> {
            if desc {
                rows.reverse();
            }
            rows.into_iter().skip(offset).take(limit).collect()
        };

        // Transactions of every account in a time window (and maybe an lt
        // window): `now <s>, lt <s>, account asc`.
        let (a, b) = (*rng.pick(&nows), *rng.pick(&nows));
        let (lo, hi) = (a.min(b), a.max(b));
        let lt = rng.chance(30).then(|| {
            let (a, b) = (*rng.pick(&lts), *rng.pick(&lts));
            (a.min(b), a.max(b))
        });
        // Of one account (a time window is an lt range of its history) or
        // of all.
        let account = rng.chance(40).then(|| rng.pick(&txs).account);
        // The expected page of `rows` ordered by `key <s>, account asc`.
        let tx_page = |mut rows: Vec<&TransactionRecord>,
                       key: fn(&TransactionRecord) -> (u32, u64)| {
            rows.sort_by(|x, y| {
                let o = key(x).cmp(&key(y));
                let o = if desc { o.reverse() } else { o };
                o.then_with(|| x.account.cmp(&y.account))
            });
            // `page` reverses for desc: hand it the ascending order of that.
            let mut expected: Vec<String> = rows.iter().map(|t| b64(&t.hash)).collect();
            if desc {
                expected.reverse();
            }
            page(expected)
        };
        let rows: Vec<&TransactionRecord> = txs
            .iter()
            .filter(|t| (lo..=hi).contains(&t.now))
            .filter(|t| lt.is_none_or(|(l, h)| (l..=h).contains(&t.lt)))
            .filter(|t| account.is_none_or(|a| a == t.account))
            .collect();
        let expected = tx_page(rows, |t| (t.now, t.lt));
        let mut uri = format!("/api/v3/transactions?start_utime={lo}&end_utime={hi}&{paging}");
        if let Some((l, h)) = lt {
            uri.push_str(&format!("&start_lt={l}&end_lt={h}"));
        }
        if let Some(a) = account {
            uri.push_str(&format!("&account={}", q(&raw_upper(&a))));
        }
        let reply = get(&uri);
        assert_eq!(reply.status, 200, "{uri}: {}", reply.json);
        assert_eq!(ids(&reply.json, "transactions", "hash"), expected, "{uri}");
        nonempty.0 += usize::from(!expected.is_empty());

        // Every account's transactions in an lt window alone (`lt <s>,
        // account asc`), maybe of one workchain (read from the index's
        // keys) or naming a shard without a whole block (read from the
        // records).
        let (a, b) = (*rng.pick(&lts), *rng.pick(&lts));
        let (l, h) = (a.min(b), a.max(b));
        let workchain = rng.chance(40).then(|| *rng.pick(&[-1, 0]));
        let shard = rng.chance(20).then(|| rng.pick(&txs).block.shard);
        let rows: Vec<&TransactionRecord> = txs
            .iter()
            .filter(|t| (l..=h).contains(&t.lt))
            .filter(|t| workchain.is_none_or(|w| w == t.account.workchain))
            .filter(|t| shard.is_none_or(|s| s == t.block.shard))
            .collect();
        let expected = tx_page(rows, |t| (0, t.lt));
        let mut uri = format!("/api/v3/transactions?start_lt={l}&end_lt={h}&{paging}");
        if let Some(w) = workchain {
            uri.push_str(&format!("&workchain={w}"));
        }
        if let Some(s) = shard {
            uri.push_str(&format!("&shard={s:016x}"));
        }
        let reply = get(&uri);
        assert_eq!(reply.status, 200, "{uri}: {}", reply.json);
        assert_eq!(ids(&reply.json, "transactions", "hash"), expected, "{uri}");
        nonempty.2 += usize::from(!expected.is_empty());

        // Blocks, sorted by time (ties by id), in a time window or none,
        // of one workchain or all.
        let window = rng.chance(60).then(|| {
            let (a, b) = (*rng.pick(&utimes), *rng.pick(&utimes));
            (a.min(b), a.max(b))
        });
        let workchain = rng.chance(30).then(|| *rng.pick(&[-1, 0]));
        let mut rows: Vec<&BlockRecord> = blocks
            .iter()
            .filter(|b| window.is_none_or(|(l, h)| (l..=h).contains(&b.gen_utime)))
            .filter(|b| workchain.is_none_or(|w| w == b.id.id.workchain))
            .collect();
        rows.sort_by_key(|b| (b.gen_utime, b.id.id));
        let expected = page(rows.iter().map(|b| b64(&b.id.root_hash)).collect());
        let mut uri = format!("/api/v3/blocks?{paging}");
        if let Some((l, h)) = window {
            uri.push_str(&format!("&start_utime={l}&end_utime={h}"));
        }
        if let Some(w) = workchain {
            uri.push_str(&format!("&workchain={w}"));
        }
        let reply = get(&uri);
        assert_eq!(reply.status, 200, "{uri}: {}", reply.json);
        assert_eq!(ids(&reply.json, "blocks", "root_hash"), expected, "{uri}");
        nonempty.1 += usize::from(!expected.is_empty());
    }
    assert!(
        nonempty.0 > 60 && nonempty.1 > 100 && nonempty.2 > 100,
        "{nonempty:?}"
    );
}

/// Asks `uri` and checks its messages are `rows[offset..][..limit]`, in
/// order; returns that expected page.
fn message_page_is(
    uri: &str,
    rows: &[&tonindex_model::MessageRecord],
    offset: usize,
    limit: usize,
) -> Vec<String> {
    let expected: Vec<String> = rows
        .iter()
        .skip(offset)
        .take(limit)
        .map(|m| b64(&m.hash))
        .collect();
    let reply = get(uri);
    assert_eq!(reply.status, 200, "{uri}: {}", reply.json);
    assert_eq!(ids(&reply.json, "messages", "hash"), expected, "{uri}");
    expected
}

#[test]
fn messages_of_a_source_equal_a_scan() {
    use tonindex_model::MessageRecord;
    let scratch = tempfile::tempdir().unwrap();
    let db = Db::open_follower(fixture().db_path(), scratch.path()).unwrap();
    let msgs: Vec<MessageRecord> = crate::common::all_messages(&db.reader())
        .into_iter()
        .filter(|m| m.source.is_some())
        .collect();
    assert!(msgs.len() > 200, "the fixture is too small to tell");
    let mut rng = Rng(0x5e4d_0000_2222_9999);
    let mut nonempty = 0;
    for _ in 0..200 {
        let source = rng.pick(&msgs).source.unwrap();
        let mine: Vec<&MessageRecord> = msgs.iter().filter(|m| m.source == Some(source)).collect();
        let desc = rng.chance(50);
        let (limit, offset) = (
            1 + rng.below(10),
            if rng.chance(30) { rng.below(20) } else { 0 },
        );
        let mut uri = format!(
            "/api/v3/messages?source={}&limit={limit}&offset={offset}&sort={}",
            q(&raw_upper(&source)),
            if desc { "desc" } else { "asc" }
        );
        // A time window (then ordered by time) from the account's own
        // messages, an lt window, both, or none.
        let pick = |rng: &mut Rng, v: Vec<u64>| {
            let (a, b) = (*rng.pick(&v), *rng.pick(&v));
            (a.min(b), a.max(b))
        };
        let utime = rng.chance(50).then(|| {
            pick(
                &mut rng,
                mine.iter()
                    .map(|m| u64::from(m.created_at.unwrap()))
                    .collect(),
            )
        });
        let lt = rng.chance(30).then(|| {
            pick(
                &mut rng,
                mine.iter().map(|m| m.created_lt.unwrap()).collect(),
            )
        });
        if let Some((a, b)) = utime {
            uri.push_str(&format!("&start_utime={a}&end_utime={b}"));
        }
        if let Some((a, b)) = lt {
            uri.push_str(&format!("&start_lt={a}&end_lt={b}"));
        }
        let mut rows: Vec<&MessageRecord> = mine
            .into_iter()
            .filter(|m| {
                utime.is_none_or(|(a, b)| (a..=b).contains(&u64::from(m.created_at.unwrap())))
            })
            .filter(|m| lt.is_none_or(|(a, b)| (a..=b).contains(&m.created_lt.unwrap())))
            .collect();
        if utime.is_some() {
            rows.sort_by_key(|m| (m.created_at, m.hash));
        } else {
            rows.sort_by_key(|m| (m.created_lt, m.hash));
        }
        if desc {
            rows.reverse();
        }
        let expected = message_page_is(&uri, &rows, offset, limit);
        nonempty += usize::from(!expected.is_empty());
    }
    assert!(nonempty > 100, "{nonempty}");
}

/// `/messages` by destination, body hash or opcode — each walked from an
/// index of its own in answer order — against a scan of every stored
/// message: random windows (by time, by lt, both, none), sorts and
/// offsets, external-in messages (no created_lt or created_at) included
/// where no window rules them out.
#[test]
fn messages_by_destination_body_or_opcode_equal_a_scan() {
    use tonindex_model::{MessageRecord, MsgKind};
    let scratch = tempfile::tempdir().unwrap();
    let db = Db::open_follower(fixture().db_path(), scratch.path()).unwrap();
    let msgs: Vec<MessageRecord> = crate::common::all_messages(&db.reader());
    let external_in: Vec<MessageRecord> = msgs
        .iter()
        .filter(|m| m.kind == MsgKind::ExternalIn)
        .cloned()
        .collect();
    assert!(
        msgs.len() > 200 && external_in.len() > 20,
        "the fixture is too small to tell"
    );
    let mut rng = Rng(0x0de5_7000_3333_1111);
    let (mut nonempty, mut with_nulls) = (0, 0);
    for round in 0..300 {
        // Every fourth group is one of an external-in message's (nulls to place).
        let seed = if round % 4 == 3 {
            rng.pick(&external_in).clone()
        } else {
            rng.pick(&msgs).clone()
        };
        // The group: a destination, a body hash or an opcode of a random message.
        let (param, mine): (String, Vec<&MessageRecord>) = match round % 3 {
            0 if seed.destination.is_some() => {
                let d = seed.destination;
                let p = format!("destination={}", q(&raw_upper(&d.unwrap())));
                (p, msgs.iter().filter(|m| m.destination == d).collect())
            }
            1 | 0 => {
                let h = seed.body_hash;
                let p = format!("body_hash={}", q(&b64(&h)));
                (p, msgs.iter().filter(|m| m.body_hash == h).collect())
            }
            _ => match seed.opcode {
                Some(op) => {
                    let p = format!("opcode=0x{op:08x}");
                    (p, msgs.iter().filter(|m| m.opcode == Some(op)).collect())
                }
                None => continue,
            },
        };
        let desc = rng.chance(50);
        let (limit, offset) = (
            1 + rng.below(10),
            if rng.chance(30) { rng.below(20) } else { 0 },
        );
        let mut uri = format!(
            "/api/v3/messages?{param}&limit={limit}&offset={offset}&sort={}",
            if desc { "desc" } else { "asc" }
        );
        let pick = |rng: &mut Rng, v: Vec<u64>| {
            if v.is_empty() {
                return (0, 0);
            }
            let (a, b) = (*rng.pick(&v), *rng.pick(&v));
            (a.min(b), a.max(b))
        };
        let utime = rng.chance(40).then(|| {
            let v = mine
                .iter()
                .filter_map(|m| m.created_at.map(u64::from))
                .collect();
            pick(&mut rng, v)
        });
        let lt = rng
            .chance(30)
            .then(|| pick(&mut rng, mine.iter().filter_map(|m| m.created_lt).collect()));
        if let Some((a, b)) = utime {
            uri.push_str(&format!("&start_utime={a}&end_utime={b}"));
        }
        if let Some((a, b)) = lt {
            uri.push_str(&format!("&start_lt={a}&end_lt={b}"));
        }
        // A window rules out the messages without its value.
        let within = |v: Option<u64>, w: Option<(u64, u64)>| match w {
            None => true,
            Some((a, b)) => v.is_some_and(|v| (a..=b).contains(&v)),
        };
        let mut rows: Vec<&MessageRecord> = mine
            .into_iter()
            .filter(|m| within(m.created_at.map(u64::from), utime))
            .filter(|m| within(m.created_lt, lt))
            .collect();
        // By time with a time window, else by lt; then by hash; nulls last.
        let key = |m: &MessageRecord| match utime {
            Some(_) => m.created_at.map(u64::from),
            None => m.created_lt,
        };
        rows.sort_by_key(|m| (key(m).is_none(), key(m), m.hash));
        if desc {
            rows.reverse();
        }
        let expected = message_page_is(&uri, &rows, offset, limit);
        nonempty += usize::from(!expected.is_empty());
        with_nulls += usize::from(
            rows.iter()
                .skip(offset)
                .take(limit)
                .any(|m| m.created_lt.is_none()),
        );
    }
    assert!(nonempty > 150 && with_nulls > 10, "{nonempty} {with_nulls}");
}

/// One account's transactions with no window, or an lt window, at random
/// offsets and in both orders (the offset skips index keys unread) against
/// a scan of every stored transaction.
#[test]
fn an_accounts_transactions_at_any_offset_equal_a_scan() {
    let scratch = tempfile::tempdir().unwrap();
    let db = Db::open_follower(fixture().db_path(), scratch.path()).unwrap();
    let r = db.reader();
    let tx_ids: Vec<u64> = r
        .prefix::<Transactions>(&[], false)
        .map(|x| x.unwrap().0)
        .collect();
    let txs: Vec<TransactionRecord> =
        tonindex::query::transactions::tx_records(&r, &tx_ids).unwrap();
    let mut rng = Rng(0x0ff5_e700_4444_2222);
    let mut deep = 0;
    for _ in 0..150 {
        let account = rng.pick(&txs).account;
        let mut mine: Vec<&TransactionRecord> =
            txs.iter().filter(|t| t.account == account).collect();
        mine.sort_by_key(|t| t.lt);
        let lt = rng.chance(30).then(|| {
            let (a, b) = (rng.pick(&mine).lt, rng.pick(&mine).lt);
            (a.min(b), a.max(b))
        });
        mine.retain(|t| lt.is_none_or(|(a, b)| (a..=b).contains(&t.lt)));
        let desc = rng.chance(50);
        if desc {
            mine.reverse();
        }
        let limit = 1 + rng.below(8);
        let offset = rng.below(mine.len() + 3);
        let expected: Vec<String> = mine
            .iter()
            .skip(offset)
            .take(limit)
            .map(|t| b64(&t.hash))
            .collect();
        let mut uri = format!(
            "/api/v3/transactions?account={}&limit={limit}&offset={offset}&sort={}",
            q(&raw_upper(&account)),
            if desc { "desc" } else { "asc" }
        );
        if let Some((a, b)) = lt {
            uri.push_str(&format!("&start_lt={a}&end_lt={b}"));
        }
        let reply = get(&uri);
        assert_eq!(reply.status, 200, "{uri}: {}", reply.json);
        assert_eq!(ids(&reply.json, "transactions", "hash"), expected, "{uri}");
        deep += usize::from(offset > 0 && !expected.is_empty());
    }
    assert!(deep > 30, "{deep}");
}
