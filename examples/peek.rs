fn main() {
    for p in std::env::args().skip(1) {
        let b = tonindex::ingest::decode_file(std::path::Path::new(&p)).unwrap();
        let r = &b.record;
        println!(
            "{} ({},{:x},{}) utime={} master_ref={:?} shards={:?} prev={:?}",
            p,
            r.id.id.workchain,
            r.id.id.shard,
            r.id.id.seqno,
            r.gen_utime,
            r.master_ref.map(|m| m.block.id.seqno),
            b.shards
                .iter()
                .map(|s| (s.block.id.shard, s.block.id.seqno))
                .collect::<Vec<_>>(),
            r.prev_blocks
                .iter()
                .map(|p| p.block.id.seqno)
                .collect::<Vec<_>>()
        );
    }
}
