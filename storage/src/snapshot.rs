//! Snapshot streams: every table of a database, row by row, in one
//! LZ4-compressed stream that can go to a file or a pipe.
//!
//! The stream is a run of chunks — `raw_len u32 | compressed_len u32 |
//! LZ4 block` — closed by an empty chunk (`0 | 0`), so that a stream cut
//! at any byte is told from a whole one. Inside, uncompressed:
//!
//! ```text
//! magic "TONINDEX-SNAPSHOT" 0x01 | schema u32 | header_len u32 | header (the caller's JSON)
//! per table:  0x54 'T' | name_len u16 | name
//!             0x52 'R' | key_len u32 | value_len u32 | key | value      (every row, in key order)
//!             0x45 'E' | rows u64 | digest u64                          (FNV-1a as `tonindex stats`)
//! 0x5A 'Z' | tables u32 | per table: name_len u16 | name | rows u64 | digest u64
//! SHA-256 of every byte before it (32 bytes), then the end of the stream
//! ```
//!
//! A reader checks each table's rows against its count and digest, the
//! summary against the tables, the checksum against the stream, and that
//! nothing follows: a cut, corrupted or extended stream is refused.

use std::io::{Read, Write};

use sha2::{Digest, Sha256};

use crate::db::{Db, Fnv64};
use crate::tables;
use crate::{Error, SCHEMA_VERSION};

const MAGIC: &[u8] = b"TONINDEX-SNAPSHOT\x01";
const TABLE: u8 = b'T';
const ROW: u8 = b'R';
const TABLE_END: u8 = b'E';
const SUMMARY: u8 = b'Z';
/// Rows restored per write batch.
const ROWS_PER_BATCH: usize = 4096;
/// Largest key or value a snapshot may hold (a corrupt length is refused
/// before anything that large is allocated).
const MAX_FIELD: u32 = 256 << 20;

/// What one table of a snapshot holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotTable {
    pub name: String,
    pub rows: u64,
    /// FNV-1a over every framed (key, value): `tonindex stats`' digest.
    pub digest: u64,
}

/// Raw bytes a chunk holds at most.
const CHUNK: usize = 1 << 20;

/// Compresses what is written to it chunk by chunk.
struct Chunks<W: Write> {
    out: W,
    buf: Vec<u8>,
}

impl<W: Write> Chunks<W> {
    fn new(out: W) -> Self {
        Self {
            out,
            buf: Vec::with_capacity(CHUNK),
        }
    }
    fn emit(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let packed = lz4_flex::block::compress(&self.buf);
        self.out.write_all(&(self.buf.len() as u32).to_be_bytes())?;
        self.out.write_all(&(packed.len() as u32).to_be_bytes())?;
        self.out.write_all(&packed)?;
        self.buf.clear();
        Ok(())
    }
    /// Writes what is left, the closing empty chunk, and flushes.
    fn finish(&mut self) -> std::io::Result<()> {
        self.emit()?;
        self.out.write_all(&[0; 8])?;
        self.out.flush()
    }
}

impl<W: Write> Write for Chunks<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let n = bytes.len().min(CHUNK - self.buf.len());
        self.buf.extend_from_slice(&bytes[..n]);
        if self.buf.len() == CHUNK {
            self.emit()?;
        }
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Reads a chunked stream back; a stream that ends before its closing
/// chunk is an error, not an end.
struct Unchunk<R: Read> {
    input: R,
    buf: Vec<u8>,
    at: usize,
    ended: bool,
}

impl<R: Read> Unchunk<R> {
    fn new(input: R) -> Self {
        Self {
            input,
            buf: Vec::new(),
            at: 0,
            ended: false,
        }
    }
    fn next_chunk(&mut self) -> std::io::Result<()> {
        let bad =
            |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
        let mut head = [0u8; 8];
        self.input.read_exact(&mut head)?;
        let raw = u32::from_be_bytes(head[..4].try_into().expect("4 bytes")) as usize;
        let packed = u32::from_be_bytes(head[4..].try_into().expect("4 bytes")) as usize;
        if raw == 0 && packed == 0 {
            self.ended = true;
            return Ok(());
        }
        if raw > CHUNK || packed > lz4_flex::block::get_maximum_output_size(CHUNK) {
            return Err(bad("a chunk larger than a snapshot writes"));
        }
        let mut compressed = vec![0u8; packed];
        self.input.read_exact(&mut compressed)?;
        self.buf = lz4_flex::block::decompress(&compressed, raw)
            .map_err(|e| bad(&format!("a chunk does not decompress: {e}")))?;
        if self.buf.len() != raw {
            return Err(bad("a chunk decompresses to another length"));
        }
        self.at = 0;
        Ok(())
    }
    /// The stream's closing chunk comes next, and nothing after it.
    fn expect_end(&mut self) -> Result<(), Error> {
        if self.at < self.buf.len() {
            return Err(Error::Snapshot("bytes follow the checksum".into()));
        }
        if !self.ended {
            self.next_chunk()
                .map_err(|e| Error::Snapshot(format!("no closing chunk: {e}")))?;
        }
        if !self.ended {
            return Err(Error::Snapshot("bytes follow the checksum".into()));
        }
        let mut rest = [0u8; 1];
        match self.input.read(&mut rest)? {
            0 => Ok(()),
            _ => Err(Error::Snapshot("bytes follow the closing chunk".into())),
        }
    }
}

impl<R: Read> Read for Unchunk<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.buf.len() {
            if self.ended {
                return Ok(0);
            }
            self.next_chunk()?;
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Hashes everything written through it.
struct Hashing<W> {
    inner: W,
    sha: Sha256,
    bytes: u64,
}

impl<W: Write> Hashing<W> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.sha.update(bytes);
        self.bytes += bytes.len() as u64;
        self.inner.write_all(bytes)?;
        Ok(())
    }
}

/// Writes every table of `db` to `out` (LZ4-framed), with `header` (the
/// caller's description of what the database holds) at the front.
/// `progress` hears each table's name and the stream's bytes so far.
/// Returns each table's row count and digest.
pub fn write_snapshot(
    db: &Db,
    header: &[u8],
    out: impl Write,
    mut progress: impl FnMut(&str, u64),
) -> Result<Vec<SnapshotTable>, Error> {
    let mut w = Hashing {
        inner: Chunks::new(out),
        sha: Sha256::new(),
        bytes: 0,
    };
    w.put(MAGIC)?;
    w.put(&SCHEMA_VERSION.to_be_bytes())?;
    w.put(&(header.len() as u32).to_be_bytes())?;
    w.put(header)?;
    let mut done = Vec::new();
    for spec in tables::all() {
        progress(spec.name, w.bytes);
        w.put(&[TABLE])?;
        w.put(&(spec.name.len() as u16).to_be_bytes())?;
        w.put(spec.name.as_bytes())?;
        let (mut rows, mut digest) = (0u64, Fnv64::default());
        db.for_each_raw(spec.name, |k, v| {
            w.put(&[ROW])?;
            w.put(&(k.len() as u32).to_be_bytes())?;
            w.put(&(v.len() as u32).to_be_bytes())?;
            w.put(k)?;
            w.put(v)?;
            rows += 1;
            digest.write_framed(k);
            digest.write_framed(v);
            Ok(())
        })?;
        w.put(&[TABLE_END])?;
        w.put(&rows.to_be_bytes())?;
        w.put(&digest.0.to_be_bytes())?;
        done.push(SnapshotTable {
            name: spec.name.to_string(),
            rows,
            digest: digest.0,
        });
    }
    w.put(&[SUMMARY])?;
    w.put(&(done.len() as u32).to_be_bytes())?;
    for t in &done {
        w.put(&(t.name.len() as u16).to_be_bytes())?;
        w.put(t.name.as_bytes())?;
        w.put(&t.rows.to_be_bytes())?;
        w.put(&t.digest.to_be_bytes())?;
    }
    let sum = w.sha.clone().finalize();
    w.inner.write_all(&sum)?;
    w.inner.finish()?;
    progress("", w.bytes + 32);
    Ok(done)
}

/// Reads through a stream, hashing what it reads.
struct Reading<R> {
    inner: R,
    sha: Sha256,
    bytes: u64,
}

impl<R: Read> Reading<R> {
    fn take(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.inner.read_exact(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => {
                Error::Snapshot(format!("cut short after {} bytes", self.bytes))
            }
            _ => Error::Snapshot(format!("unreadable after {} bytes: {e}", self.bytes)),
        })?;
        self.sha.update(&*buf);
        self.bytes += buf.len() as u64;
        Ok(())
    }
    fn byte(&mut self) -> Result<u8, Error> {
        let mut b = [0u8; 1];
        self.take(&mut b)?;
        Ok(b[0])
    }
    fn u16(&mut self) -> Result<u16, Error> {
        let mut b = [0u8; 2];
        self.take(&mut b)?;
        Ok(u16::from_be_bytes(b))
    }
    fn u32(&mut self) -> Result<u32, Error> {
        let mut b = [0u8; 4];
        self.take(&mut b)?;
        Ok(u32::from_be_bytes(b))
    }
    fn u64(&mut self) -> Result<u64, Error> {
        let mut b = [0u8; 8];
        self.take(&mut b)?;
        Ok(u64::from_be_bytes(b))
    }
    fn field(&mut self, len: u32) -> Result<Vec<u8>, Error> {
        if len > MAX_FIELD {
            return Err(Error::Snapshot(format!(
                "a field of {len} bytes at byte {}",
                self.bytes
            )));
        }
        let mut v = vec![0u8; len as usize];
        self.take(&mut v)?;
        Ok(v)
    }
    fn name(&mut self) -> Result<String, Error> {
        let len = self.u16()?;
        String::from_utf8(self.field(u32::from(len))?).map_err(|_| {
            Error::Snapshot(format!("a table name at byte {} is not text", self.bytes))
        })
    }
}

/// Reads a snapshot stream from `input` into `db` (a fresh database):
/// `check_header` sees the caller's header before any row is written and
/// may refuse it. Every table must be one this build has, each whole and
/// matching its digest, the summary and the checksum must agree, and
/// nothing may follow. Returns the header and the tables.
pub fn read_snapshot(
    input: impl Read,
    db: &Db,
    check_header: impl FnOnce(&[u8]) -> Result<(), String>,
    mut progress: impl FnMut(&str, u64),
) -> Result<(Vec<u8>, Vec<SnapshotTable>), Error> {
    let mut r = Reading {
        inner: Unchunk::new(input),
        sha: Sha256::new(),
        bytes: 0,
    };
    let mut magic = [0u8; MAGIC.len()];
    r.take(&mut magic)
        .map_err(|_| Error::Snapshot("not a tonindex snapshot (too short)".into()))?;
    if magic != MAGIC {
        return Err(Error::Snapshot("not a tonindex snapshot (no magic)".into()));
    }
    let schema = r.u32()?;
    if schema != SCHEMA_VERSION {
        return Err(Error::SchemaMismatch {
            path: "the snapshot".into(),
            found: schema,
            expected: SCHEMA_VERSION,
        });
    }
    let header_len = r.u32()?;
    let header = r.field(header_len)?;
    check_header(&header).map_err(Error::Snapshot)?;
    let known: Vec<&str> = tables::all().into_iter().map(|t| t.name).collect();
    let mut done: Vec<SnapshotTable> = Vec::new();
    loop {
        match r.byte()? {
            TABLE => {}
            SUMMARY => break,
            other => {
                return Err(Error::Snapshot(format!(
                    "unexpected byte {other:#04x} at byte {}",
                    r.bytes
                )))
            }
        }
        let name = r.name()?;
        if !known.contains(&name.as_str()) || done.iter().any(|t| t.name == name) {
            return Err(Error::Snapshot(format!(
                "table {name:?} is not this build's, or twice"
            )));
        }
        progress(&name, r.bytes);
        let (mut rows, mut digest) = (0u64, Fnv64::default());
        let mut pending = Vec::with_capacity(ROWS_PER_BATCH);
        loop {
            match r.byte()? {
                ROW => {
                    let (kl, vl) = (r.u32()?, r.u32()?);
                    let (k, v) = (r.field(kl)?, r.field(vl)?);
                    digest.write_framed(&k);
                    digest.write_framed(&v);
                    rows += 1;
                    pending.push((k, v));
                    if pending.len() == ROWS_PER_BATCH {
                        db.put_raw_unlogged(&name, &pending)?;
                        pending.clear();
                    }
                }
                TABLE_END => break,
                other => {
                    return Err(Error::Snapshot(format!(
                        "unexpected byte {other:#04x} in table {name} at byte {}",
                        r.bytes
                    )))
                }
            }
        }
        db.put_raw_unlogged(&name, &pending)?;
        let (said_rows, said_digest) = (r.u64()?, r.u64()?);
        if (said_rows, said_digest) != (rows, digest.0) {
            return Err(Error::Snapshot(format!(
                "table {name}: {rows} rows with digest {:016x}, the snapshot says {said_rows} \
                 with {said_digest:016x}",
                digest.0
            )));
        }
        done.push(SnapshotTable {
            name,
            rows,
            digest: digest.0,
        });
    }
    let count = r.u32()?;
    let mut summary = Vec::new();
    for _ in 0..count.min(4096) {
        summary.push(SnapshotTable {
            name: r.name()?,
            rows: r.u64()?,
            digest: r.u64()?,
        });
    }
    if summary != done {
        return Err(Error::Snapshot(
            "the summary does not match the tables".into(),
        ));
    }
    let expected = r.sha.clone().finalize();
    let mut sum = [0u8; 32];
    r.inner
        .read_exact(&mut sum)
        .map_err(|_| Error::Snapshot(format!("cut short after {} bytes (no checksum)", r.bytes)))?;
    if sum[..] != expected[..] {
        return Err(Error::Snapshot(
            "the checksum does not match the stream".into(),
        ));
    }
    r.inner.expect_end()?;
    progress("", r.bytes + 32);
    Ok((header, done))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::Blocks;
    use crate::DbOptions;

    fn db(dir: &std::path::Path) -> Db {
        Db::open(dir, &DbOptions::default()).unwrap()
    }

    #[test]
    fn a_snapshot_restores_every_row_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let src = db(&dir.path().join("src"));
        let rows: Vec<(Vec<u8>, Vec<u8>)> = (0..10_000u32)
            .map(|i| (i.to_be_bytes().to_vec(), vec![i as u8; (i % 50) as usize]))
            .collect();
        src.put_raw_unlogged(<Blocks as crate::tables::Table>::NAME, &rows)
            .unwrap();
        let mut bytes = Vec::new();
        let written = write_snapshot(&src, b"{\"x\":1}", &mut bytes, |_, _| {}).unwrap();
        let stats: Vec<(String, u64, u64)> = src
            .stats()
            .unwrap()
            .into_iter()
            .map(|t| (t.name.to_string(), t.rows, t.digest.0))
            .collect();
        let said: Vec<(String, u64, u64)> = written
            .iter()
            .map(|t| (t.name.clone(), t.rows, t.digest))
            .collect();
        assert_eq!(said, stats, "the snapshot's digests are `stats`'");

        let restored = db(&dir.path().join("restored"));
        let (header, tables) = read_snapshot(&bytes[..], &restored, |_| Ok(()), |_, _| {}).unwrap();
        assert_eq!(header, b"{\"x\":1}");
        assert_eq!(tables, written);
        let again: Vec<(String, u64, u64)> = restored
            .stats()
            .unwrap()
            .into_iter()
            .map(|t| (t.name.to_string(), t.rows, t.digest.0))
            .collect();
        assert_eq!(again, stats);

        // Cut anywhere, or one byte changed: refused.
        let n = bytes.len();
        for cut in [10, n / 2].into_iter().chain(n - 12..n) {
            let d = db(&dir.path().join(format!("cut{cut}")));
            assert!(read_snapshot(&bytes[..cut], &d, |_| Ok(()), |_, _| {}).is_err());
        }
        let mut longer = bytes.clone();
        longer.push(0);
        let d = db(&dir.path().join("longer"));
        assert!(read_snapshot(&longer[..], &d, |_| Ok(()), |_, _| {}).is_err());
        let mut changed = bytes.clone();
        let at = changed.len() / 2;
        changed[at] ^= 0x40;
        let d = db(&dir.path().join("changed"));
        assert!(read_snapshot(&changed[..], &d, |_| Ok(()), |_, _| {}).is_err());
        // Another schema's snapshot (whole and well formed otherwise).
        let mut other = Vec::new();
        let mut w = Chunks::new(&mut other);
        w.write_all(MAGIC).unwrap();
        w.write_all(&(SCHEMA_VERSION + 1).to_be_bytes()).unwrap();
        w.write_all(&0u32.to_be_bytes()).unwrap();
        w.finish().unwrap();
        let d = db(&dir.path().join("schema"));
        let e = read_snapshot(&other[..], &d, |_| Ok(()), |_, _| {}).unwrap_err();
        assert!(matches!(e, Error::SchemaMismatch { .. }), "{e}");
        // Not a snapshot; a header the caller refuses.
        let d = db(&dir.path().join("garbage"));
        assert!(read_snapshot(&b"hello world"[..], &d, |_| Ok(()), |_, _| {}).is_err());
        let d = db(&dir.path().join("refused"));
        let e = read_snapshot(&bytes[..], &d, |_| Err("another network".into()), |_, _| {})
            .unwrap_err();
        assert!(e.to_string().contains("another network"), "{e}");
    }
}
