//! `tonindex bench-dev --sync`: the same blocks indexed two ways — imported
//! from the devnet's exported files, and followed from the devnet's lite
//! server over loopback (`tonindex sync`'s path: lookupBlock, getBlock,
//! getState, one unit per masterchain block) — each into a fresh database,
//! with tx/s and the ratio (F7's target: sync ≥ 0.7× import); then once
//! more through a relay that adds a round-trip delay, with the masterchain
//! blocks per second the follower keeps up with.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tonindex_storage::{Db, DbOptions};
use tycho_types::cell::HashBytes;

use crate::api::{lite::LiteServer, Api, ApiConfig};
use crate::chain::devnet::node::{self, Devnet};
use crate::chain::liteserver::follow::{follow, FollowOptions};
use crate::chain::liteserver::LiteServerAddr;
use crate::ingest::{import_files, IngestOptions, Pipeline};

fn fresh(dir: &Path) -> anyhow::Result<Arc<Db>> {
    Ok(Arc::new(Db::open(
        dir,
        &DbOptions {
            sync_writes: false,
            write_only_memtables: false,
            scratch: false,
            bulk: false,
        },
    )?))
}

/// Imports `export` and follows the devnet's lite server, each into a
/// fresh database under `scratch`, and prints both rates.
pub fn compare(
    db: &Arc<Db>,
    devnet: &Devnet,
    export: &Path,
    scratch: &Path,
    rtt: Duration,
) -> anyhow::Result<()> {
    let transactions = db.cursor()?.transactions;
    let tip = devnet.mc_seqno();

    let imported = fresh(&scratch.join("imported"))?;
    let paths = crate::chain::files::collect_paths(&[export.to_path_buf()])?;
    let t = Instant::now();
    let opts = IngestOptions::with_chunk_size(512);
    import_files(&imported, &paths, &opts, |_, _| {})?;
    let import_time = t.elapsed();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    let secret = devnet.liteserver_secret();
    let (root, file) = devnet.zerostate_hex();
    let hash = |h: &str| -> anyhow::Result<HashBytes> {
        Ok(HashBytes(hex::decode(h)?.try_into().map_err(|_| {
            anyhow::anyhow!("a zero state hash is not 32 bytes")
        })?))
    };
    let api = Api::new(Arc::clone(db), ApiConfig::default());
    let server = LiteServer::new(
        api,
        secret,
        (hash(&root)?, hash(&file)?),
        node::blocks_dir(db.path()),
    );
    runtime.spawn(server.serve(addr));
    let followed = fresh(&scratch.join("followed"))?;
    let target = LiteServerAddr {
        addr,
        key: crate::api::lite::public_key(&secret),
    };
    let opts = FollowOptions {
        from_seqno: None,
        from_tip: false,
        until_seqno: Some(tip),
        step_timeout: None,
        // This lite server holds no block signatures (it serves the
        // produced blocks without the devnet): the follower believes it.
        anchor: None,
        zero_state: None,
        tips: None,
    };
    let timed = |db: &Arc<Db>, target: &LiteServerAddr| {
        runtime.block_on(async {
            let t = Instant::now();
            follow(
                &Pipeline::new(Arc::clone(db)),
                std::slice::from_ref(target),
                &opts,
                Duration::from_millis(10),
                |_, _| {},
            )
            .await?;
            anyhow::Ok(t.elapsed())
        })
    };
    let sync_time = timed(&followed, &target)?;
    let rate = |d: Duration| transactions as f64 / d.as_secs_f64().max(1e-9);
    println!(
        "import of the exported files: {transactions} transactions, {tip} masterchain blocks in \
         {:.2}s: {:.0} tx/s",
        import_time.as_secs_f64(),
        rate(import_time)
    );
    println!(
        "sync from the lite server over loopback: the same in {:.2}s: {:.0} tx/s ({:.2}x import)",
        sync_time.as_secs_f64(),
        rate(sync_time),
        import_time.as_secs_f64() / sync_time.as_secs_f64().max(1e-9)
    );
    if followed.cursor()?.transactions != transactions {
        anyhow::bail!("the follower indexed another number of transactions");
    }
    if rtt.is_zero() {
        return Ok(());
    }
    let relay = runtime.block_on(delay_relay(addr, rtt / 2))?;
    let far = fresh(&scratch.join("followed-far"))?;
    let far_time = timed(
        &far,
        &LiteServerAddr {
            addr: relay,
            key: target.key,
        },
    )?;
    println!(
        "sync through a {} ms round trip: {tip} masterchain blocks in {:.2}s: {:.1} masterchain \
         blocks/s, {:.0} tx/s",
        rtt.as_millis(),
        far_time.as_secs_f64(),
        f64::from(tip) / far_time.as_secs_f64().max(1e-9),
        rate(far_time)
    );
    if far.cursor()?.transactions != transactions {
        anyhow::bail!("the follower indexed another number of transactions");
    }
    Ok(())
}

/// A TCP relay to `upstream` on a loopback port that delivers every chunk
/// `delay` after it arrived, in each direction (latency, not bandwidth:
/// chunks in flight overlap); returns the relay's address.
async fn delay_relay(
    upstream: std::net::SocketAddr,
    delay: Duration,
) -> anyhow::Result<std::net::SocketAddr> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(upstream).await else {
                continue;
            };
            let (cr, cw) = client.into_split();
            let (sr, sw) = server.into_split();
            tokio::spawn(delayed_pipe(cr, sw, delay));
            tokio::spawn(delayed_pipe(sr, cw, delay));
        }
    });
    Ok(addr)
}

/// Copies `from` to `to`, each chunk written `delay` after it was read.
async fn delayed_pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    tokio::spawn(async move {
        while let Some((due, chunk)) = rx.recv().await {
            tokio::time::sleep_until(due).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let due = tokio::time::Instant::now() + delay;
                if tx.send((due, buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        }
    }
}
