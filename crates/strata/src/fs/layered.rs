//! [`Layered`]: a [`WritableFile`] that is another one with a [`Layer`] on
//! top, for the writers that do something on the way to a file (range-sync
//! it, time its appends, pay a rate limiter) and pass every call on.

use super::WritableFile;
use crate::error::Result;

/// What a [`Layered`] file does on the way to the file under it. Each
/// method gets the call and that file; by default it passes the call on.
pub trait Layer: Send + Sync {
    /// Appends `data` to `inner`.
    fn append(&mut self, inner: &mut dyn WritableFile, data: &[u8]) -> Result<()> {
        inner.append(data)
    }

    /// Flushes `inner`.
    fn flush(&mut self, inner: &mut dyn WritableFile) -> Result<()> {
        inner.flush()
    }

    /// Syncs `inner`.
    fn sync(&mut self, inner: &mut dyn WritableFile) -> Result<()> {
        inner.sync()
    }
}

/// `inner` with `layer` on top: appends, flushes and syncs go through the
/// layer; the size and range syncs are the inner file's.
pub struct Layered<L> {
    inner: Box<dyn WritableFile>,
    layer: L,
}

impl<L: Layer> Layered<L> {
    /// `inner` with `layer` on top.
    pub fn new(inner: Box<dyn WritableFile>, layer: L) -> Self {
        Layered { inner, layer }
    }
}

impl<L: Layer> WritableFile for Layered<L> {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.layer.append(&mut *self.inner, data)
    }

    fn flush(&mut self) -> Result<()> {
        self.layer.flush(&mut *self.inner)
    }

    fn sync(&mut self) -> Result<()> {
        self.layer.sync(&mut *self.inner)
    }

    fn size(&self) -> u64 {
        self.inner.size()
    }

    fn range_sync(&mut self, offset: u64, len: u64) -> Result<()> {
        self.inner.range_sync(offset, len)
    }
}
