//! The engine's one error type.
//!
//! Not-found is `Ok(None)`, never an error. `Corruption` always names the file
//! and the byte offset where the damage was seen, so that a user (or
//! `strata inspect`) can find it.

use std::sync::Arc;

/// Result alias used throughout the engine.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in the engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O error, with what the engine was doing.
    #[error("IO error: {context}: {source}")]
    Io {
        /// What the engine was doing, including the file path.
        context: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// On-disk data failed a checksum or could not be decoded.
    #[error("Corruption: {file} at offset {offset}: {message}")]
    Corruption {
        /// The file in which the damage was found.
        file: String,
        /// Byte offset in that file.
        offset: u64,
        /// What was wrong.
        message: String,
    },
    /// A bad option, argument or call sequence.
    #[error("Invalid argument: {0}")]
    InvalidArgument(String),
    /// A feature or option value this build does not support.
    #[error("Not supported: {0}")]
    NotSupported(String),
    /// The merge operator could not combine a key's merge operands (its
    /// `full_merge` returned `None`); the message names the operator and
    /// the key. RocksDB reports this as a `Corruption` with the sub-code
    /// `kMergeOperatorFailed`; the stored data is intact.
    #[error("Merge failed: {0}")]
    MergeFailed(String),
    /// The DB is locked by another process or another `Db` in this process.
    #[error("IO error: lock {path}: {message}")]
    Locked {
        /// Path of the LOCK file.
        path: String,
        /// Why the lock could not be taken.
        message: String,
    },
    /// A background flush or compaction (or a failed WAL sync) failed earlier;
    /// the DB refuses writes until it is reopened.
    #[error("Background error, writes are stopped until reopen: {0}")]
    Background(Arc<Error>),
    /// The DB is shutting down.
    #[error("Shutdown in progress")]
    ShutdownInProgress,
}

impl Error {
    /// Builds an [`Error::Io`] with a context string.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// Builds an [`Error::Corruption`].
    pub fn corruption(file: impl Into<String>, offset: u64, message: impl Into<String>) -> Self {
        Error::Corruption {
            file: file.into(),
            offset,
            message: message.into(),
        }
    }

    /// True for [`Error::Corruption`] (also when wrapped as a background error).
    pub fn is_corruption(&self) -> bool {
        match self {
            Error::Corruption { .. } => true,
            Error::Background(e) => e.is_corruption(),
            _ => false,
        }
    }

    /// True for [`Error::Io`] (also when wrapped as a background error).
    pub fn is_io(&self) -> bool {
        match self {
            Error::Io { .. } => true,
            Error::Background(e) => e.is_io(),
            _ => false,
        }
    }

    /// True if the root cause is the disk being full (ENOSPC).
    pub fn is_no_space(&self) -> bool {
        match self {
            Error::Io { source, .. } => source.raw_os_error() == Some(libc::ENOSPC),
            Error::Background(e) => e.is_no_space(),
            _ => false,
        }
    }

    /// A copy of this error that can be handed to several callers.
    ///
    /// `std::io::Error` is not `Clone`; its kind, OS code and message are kept.
    pub fn duplicate(&self) -> Error {
        match self {
            Error::Io { context, source } => Error::Io {
                context: context.clone(),
                source: match source.raw_os_error() {
                    Some(code) => std::io::Error::from_raw_os_error(code),
                    None => std::io::Error::new(source.kind(), source.to_string()),
                },
            },
            Error::Corruption {
                file,
                offset,
                message,
            } => Error::Corruption {
                file: file.clone(),
                offset: *offset,
                message: message.clone(),
            },
            Error::InvalidArgument(m) => Error::InvalidArgument(m.clone()),
            Error::NotSupported(m) => Error::NotSupported(m.clone()),
            Error::MergeFailed(m) => Error::MergeFailed(m.clone()),
            Error::Locked { path, message } => Error::Locked {
                path: path.clone(),
                message: message.clone(),
            },
            Error::Background(e) => Error::Background(e.clone()),
            Error::ShutdownInProgress => Error::ShutdownInProgress,
        }
    }
}
