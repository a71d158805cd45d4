//! Key-value separation: blob files, their reader, writer and cache, garbage
//! accounting and the garbage-collection policy (RocksDB's integrated
//! BlobDB). The byte layout is specified in `docs/formats/blob.md`.
//!
//! # The pieces
//!
//! - [`format`](mod@format): header, record and footer encodings and their checksums.
//! - [`BlobIndex`]: what a table stores, under `ValueType::BlobIndex`, in
//!   place of a separated value: file number, value offset, stored size,
//!   compression.
//! - [`BlobFileBuilder`]: writes one blob file; [`BlobFileInfo`] describes
//!   the finished file and converts to the MANIFEST's `BlobFileAddition`.
//! - [`BlobOutput`]: the blob side of one flush or compaction: separates
//!   values of at least `min_blob_size`, rolls files at `blob_file_size`,
//!   prepopulates the cache, and finishes (syncs) or deletes the files.
//! - [`BlobFileReader`]: validates a file on open, reads one blob by index
//!   (checking that the record belongs to the key asking for it), scans a
//!   whole file, and reads ahead for compaction ([`BlobReadahead`](reader::BlobReadahead)).
//! - [`BlobCache`] and [`BlobSource`]: the read path (cache, then an LRU of
//!   open readers); [`BlobFetcher`](source::BlobFetcher) reads for one compaction.
//! - [`CompactionBlobs`]: the blob side of one compaction, entry by entry
//!   (metering, relocation, separation), built from the pieces below and
//!   above.
//! - [`GarbageMeter`](garbage::GarbageMeter): per-compaction garbage, for `BlobFileGarbage` edits.
//! - [`BlobSpaceStats`]: totals and the text of `rocksdb.blob-stats`.
//! - [`dump_blob_file`]: the text `strata inspect` prints for a blob file.
//! - [`gc_policy`]: which files are relocated, which tables the force
//!   threshold marks, which blob files are obsolete.
//!
//! # What the engine calls, and when
//!
//! **Flush**, and compaction whose output level is at least
//! `blob_file_starting_level`: create one [`BlobOutput`] (options from
//! `min_blob_size`, `blob_file_size`, `blob_compression_type`, and
//! `prepopulate_cache` = flush with `prepopulate_blob_cache = kFlushOnly`).
//! For each entry written to a table, call
//! `output.add_entry(ikey, value, new_file_number)`: a returned entry (same
//! key and sequence number, type `BlobIndex`, the encoded index) is written
//! instead. (`add(user_key, value, ..)` is the same for a bare value.)
//! Set each table's `oldest_blob_file` to the smallest blob file number its
//! entries reference (new or carried over). `output.finish()` syncs the blob
//! files and the directory; put each `info.to_addition()` into the same
//! `VersionEdit` as the tables, which is written only after that (a crash
//! before the edit leaves orphan blob files, to be deleted at open like
//! orphan tables). On any error, `output.abandon()` deletes the files.
//!
//! **Compaction**: create one [`CompactionBlobs`] with the compaction's
//! `BlobOutput` (if its output level is at least `blob_file_starting_level`
//! and blob files are on), the GC cutoff (with
//! `enable_blob_garbage_collection`:
//! `gc_policy::gc_cutoff_file_number(live blob files, age_cutoff)`, else 0)
//! and `blob_compaction_readahead_size`. Call `input(ikey, value)` for every
//! entry read, kept or dropped, and `output(ikey, value, new_file_number)`
//! for every entry kept, writing the returned replacement entry if there is
//! one. It meters garbage (a [`GarbageMeter`](garbage::GarbageMeter): references in minus
//! references out, per blob file), relocates blobs of files below the
//! cutoff (read through a [`BlobFetcher`](source::BlobFetcher) with read-ahead; written to the
//! new blob files, or inline without a `BlobOutput`, as RocksDB does), and
//! separates large inline values. `finish()` syncs the new blob files and
//! returns the edit's `blob_file_additions` and `blob_file_garbage`, `Rblob`
//! and `Wblob`, and records `rocksdb.blobdb.gc.num.keys.relocated` and
//! `rocksdb.blobdb.gc.bytes.relocated`. Each output table's
//! `oldest_blob_file` is the smallest file number among the blob indexes
//! written to it.
//!
//! **Version changes**: after applying an edit, delete
//! `gc_policy::obsolete_blob_files(..)` (in the same edit as
//! `deleted_blob_files`, or the next one), then `BlobSource::evict(n)` and
//! remove `NNNNNN.blob` once no live version references it. Recompute
//! `gc_policy::forced_blob_gc(..)` and mark its tables for compaction.
//!
//! **Properties**: `BlobSpaceStats::from_files(current blob files)` gives
//! `rocksdb.num-blob-files`, `rocksdb.live-blob-file-size`,
//! `rocksdb.live-blob-file-garbage-size` and (`to_property_string`)
//! `rocksdb.blob-stats`; `rocksdb.total-blob-file-size` is the same total
//! over the blob files of all live versions.
//!
//! **Reads**: for a `ValueType::BlobIndex` entry, `BlobIndex::decode` (a
//! decode failure is corruption of the table) and
//! `BlobSource::get(user_key, &index, read_options.fill_cache,
//! read_options.verify_checksums)`.

pub mod cache;
pub mod compaction;
pub mod dump;
pub mod format;
pub mod garbage;
pub mod gc_policy;
pub mod index;
pub mod output;
pub mod reader;
pub mod source;
pub mod space;
pub mod writer;

#[cfg(test)]
mod tests;

pub use cache::BlobCache;
pub use compaction::{CompactionBlobResult, CompactionBlobs};
pub use dump::{dump_blob_file, format_blob_index_value, BlobDumpOptions};
pub use index::BlobIndex;
pub use output::{BlobOutput, BlobOutputOptions};
pub use reader::BlobFileReader;
pub use source::BlobSource;
pub use space::BlobSpaceStats;
pub use writer::{BlobFileBuilder, BlobFileInfo};
