//! Criterion: raw tycho-types decode vs our full block decode, per fixture set.
//! For the full report (decode+index, thread scaling, bytes/tx) run
//! `tonindex bench`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tonindex::chain::files::{collect_paths, read_boc_file};
use tonindex::decode::decode_block;

fn fixture_blocks() -> Vec<Vec<u8>> {
    let dir =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/fixtures/blocks");
    collect_paths(&[dir])
        .unwrap()
        .iter()
        .filter_map(|p| read_boc_file(p).ok())
        .filter(|b| decode_block(b).is_ok())
        .collect()
}

fn bench(c: &mut Criterion) {
    let blocks = fixture_blocks();
    let tx: u64 = blocks
        .iter()
        .map(|b| decode_block(b).unwrap().transactions.len() as u64)
        .sum();
    let mut g = c.benchmark_group("fixture_blocks");
    g.throughput(Throughput::Elements(tx));
    g.sample_size(20);
    g.bench_function("tycho_boc_decode", |b| {
        b.iter(|| {
            for boc in &blocks {
                tycho_types::boc::Boc::decode(boc).unwrap();
            }
        })
    });
    g.bench_function("full_decode", |b| {
        b.iter(|| {
            for boc in &blocks {
                decode_block(boc).unwrap();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
