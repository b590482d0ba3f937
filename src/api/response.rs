//! The memory budget of one response: JSON bodies are serialised into a
//! buffer that refuses to grow past the limit the request runs under, so a
//! page that would be huge fails early instead of holding the memory.

use std::cell::Cell;
use std::io::Write;

use serde::Serialize;

thread_local! {
    /// The limit of the request running on this thread (`usize::MAX` when none).
    static LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
    /// The size of the latest body written on this thread: the next one
    /// starts with that much room (pages of one kind come in runs), not
    /// growing by doubling and copying what it holds at each step.
    static LAST_BODY: Cell<usize> = const { Cell::new(0) };
}

/// The most a body reserves up front from [`LAST_BODY`].
const RESERVE_MAX: usize = 1 << 20;

/// Runs `f` (one request's handler) with JSON bodies limited to `bytes`.
pub fn with_limit<T>(bytes: usize, f: impl FnOnce() -> T) -> T {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            LIMIT.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LIMIT.with(|l| l.replace(bytes)));
    f()
}

/// Why a body could not be written.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error(
        "the response would exceed this server's limit of {0} bytes per response; ask for a smaller page"
    )]
    TooLarge(usize),
    #[error("internal error: {0}")]
    Serialize(String),
}

/// `v` as JSON, within the running request's limit.
pub fn json<T: Serialize + ?Sized>(v: &T) -> Result<String, BodyError> {
    let limit = LIMIT.with(Cell::get);
    let reserve = LAST_BODY.with(Cell::get).min(RESERVE_MAX).min(limit);
    let mut out = Bounded {
        buf: Vec::with_capacity(reserve),
        limit,
    };
    match serde_json::to_writer(&mut out, v) {
        Ok(()) => {
            LAST_BODY.with(|l| l.set(out.buf.len()));
            String::from_utf8(out.buf).map_err(|e| BodyError::Serialize(e.to_string()))
        }
        Err(e) if e.is_io() => Err(BodyError::TooLarge(limit)),
        Err(e) => Err(BodyError::Serialize(e.to_string())),
    }
}

/// A buffer that fails a write past `limit` bytes.
struct Bounded {
    buf: Vec<u8>,
    limit: usize,
}

impl Write for Bounded {
    #[inline]
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    /// The serializer writes every token with this: one check and one
    /// copy, not `write`'s loop.
    #[inline]
    fn write_all(&mut self, data: &[u8]) -> std::io::Result<()> {
        if self.buf.len().saturating_add(data.len()) > self.limit {
            return Err(std::io::Error::other("response too large"));
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_stop_at_the_limit_of_the_running_request() {
        let page: Vec<String> = (0..1000).map(|i| format!("row {i}")).collect();
        assert!(json(&page).is_ok());
        let err = with_limit(1000, || json(&page)).unwrap_err();
        assert!(matches!(err, BodyError::TooLarge(1000)), "{err}");
        assert!(with_limit(1000, || json(&page[..10])).is_ok());
        // The limit ends with the request.
        assert!(json(&page).is_ok());
    }
}
