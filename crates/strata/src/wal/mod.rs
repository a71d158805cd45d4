//! The log format shared by the write-ahead log and the MANIFEST (LevelDB's
//! `log_format`): 32 KiB blocks of checksummed physical records, with large
//! records fragmented across blocks. A WAL record's payload is an encoded
//! [`WriteBatch`](crate::batch::WriteBatch); a MANIFEST record's payload is
//! an encoded [`VersionEdit`](crate::version::edit::VersionEdit).
//! The full specification is `docs/formats/wal.md`.

pub mod format;
mod mode;
pub mod predecessor;
mod reader;
mod writer;

pub use format::{BLOCK_SIZE, HEADER_SIZE};
pub use mode::WalRecoveryMode;
pub use reader::{DamageKind, DroppedBytes, Reader};
pub use writer::Writer;

#[cfg(test)]
mod tests;
