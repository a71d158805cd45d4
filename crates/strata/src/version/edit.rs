//! VersionEdit (in progress).
