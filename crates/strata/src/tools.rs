//! Engine internals for the tools bundled with Strata: `strata inspect` and
//! `strata stress` (crate `strata-cli`), the `strata-bench` harness, the
//! fuzz targets and the engine's integration tests.
//!
//! **Not a stable API.** What is here follows the engine's internals and
//! changes with them; an embedding program uses the crate root instead.
//! Everything here reads or writes the on-disk formats of
//! `docs/formats/` below the level of a [`Db`](crate::Db).

pub use crate::iter::InternalIterator;

/// Fixed-width and varint encodings.
pub mod coding {
    pub use crate::coding::*;
}

/// The names of a DB's files.
pub mod filename {
    pub use crate::filename::*;
}

/// The OPTIONS file.
pub mod options_file {
    pub use crate::options_file::*;
}

/// Range tombstones and their fragmentation into non-overlapping
/// fragments.
pub mod range_del {
    pub use crate::range_del::*;
}

/// Internal keys: user key, sequence number and value type.
pub mod types {
    pub use crate::types::*;
}

/// Write batches below the public API: their encoding, sequence numbers
/// and record kinds.
pub mod batch {
    pub use crate::batch::{BatchOp, HEADER_SIZE};

    use crate::batch::WriteBatch;
    use crate::error::Result;
    use crate::types::SequenceNumber;

    /// Parts of a [`WriteBatch`] that only the engine and its tools use.
    pub trait WriteBatchInternals {
        /// The batch encoded in `data` (a WAL record); `file_name` and
        /// `offset` name it in a `Corruption` error.
        ///
        /// # Errors
        /// `Corruption` when `data` is not a valid batch.
        fn from_data(data: Vec<u8>, file_name: &str, offset: u64) -> Result<WriteBatch>;
        /// The encoded batch (its WAL record).
        fn data(&self) -> &[u8];
        /// The sequence number of the first record.
        fn sequence(&self) -> SequenceNumber;
        /// Sets the sequence number of the first record.
        fn set_sequence(&mut self, seq: SequenceNumber);
        /// The records, in order.
        fn iter(&self) -> impl Iterator<Item = BatchOp<'_>> + '_;
        /// Adds a blob index record (what flush writes for a separated value).
        fn put_blob_index(&mut self, key: &[u8], index: &[u8]);
        /// Adds a record of type `t` for the column family with id `cf`
        /// (`value` is ignored for a deletion).
        fn add_record(&mut self, cf: u32, t: crate::types::ValueType, key: &[u8], value: &[u8]);
        /// `Err(InvalidArgument)` if a record could not be added (a key or
        /// value of 4 GiB or more, or too many records).
        ///
        /// # Errors
        /// As said.
        fn check(&self) -> Result<()>;
    }

    impl WriteBatchInternals for WriteBatch {
        fn from_data(data: Vec<u8>, file_name: &str, offset: u64) -> Result<WriteBatch> {
            WriteBatch::from_data(data, file_name, offset)
        }
        fn data(&self) -> &[u8] {
            WriteBatch::data(self)
        }
        fn sequence(&self) -> SequenceNumber {
            WriteBatch::sequence(self)
        }
        fn set_sequence(&mut self, seq: SequenceNumber) {
            WriteBatch::set_sequence(self, seq)
        }
        fn iter(&self) -> impl Iterator<Item = BatchOp<'_>> + '_ {
            WriteBatch::iter(self)
        }
        fn put_blob_index(&mut self, key: &[u8], index: &[u8]) {
            WriteBatch::put_blob_index(self, key, index)
        }
        fn add_record(&mut self, cf: u32, t: crate::types::ValueType, key: &[u8], value: &[u8]) {
            WriteBatch::add_raw(self, cf, t, key, value)
        }
        fn check(&self) -> Result<()> {
            WriteBatch::check(self)
        }
    }
}

/// The log format shared by the WAL and the MANIFEST.
pub mod wal {
    pub use crate::wal::predecessor::Predecessor;
    pub use crate::wal::{DamageKind, DroppedBytes, Reader, Writer, BLOCK_SIZE, HEADER_SIZE};
}

/// Table (SST) files.
pub mod sstable {
    pub use crate::sstable::block::{bytewise_cmp, Block};
    pub use crate::sstable::bloom::BloomFilter;
    pub use crate::sstable::compression::{compress_block, decompress_block};
    pub use crate::sstable::data_block_hash::HashLookup;
    pub use crate::sstable::dump::escape_bytes;
    pub use crate::sstable::format::{mask_crc, BlockHandle, Footer, FOOTER_SIZE, TABLE_MAGIC};
    pub use crate::sstable::range_del_block::{
        decode_range_del_block, encode_range_del_block, META_RANGE_DEL, RANGE_DELETION_TYPE,
    };
    pub use crate::sstable::{
        ReadOpts, Table, TableBuilder, TableInfo, TableIterator, TableOptions, TableProperties,
    };
}

/// Blob files.
pub mod blob {
    pub use crate::blob::{
        dump_blob_file, format_blob_index_value, BlobDumpOptions, BlobFileBuilder, BlobFileInfo,
        BlobFileReader, BlobIndex, BlobSpaceStats,
    };
}

/// Versions and the MANIFEST.
pub mod version {
    pub use crate::version::edit::{
        read_manifest, BlobFileAddition, BlobFileGarbage, FileMetaData, VersionEdit, MAX_LEVELS,
    };
    pub use crate::version::{Version, VersionBuilder};
}

/// The `rocksdb.stats` text formatter, whose output the bench's reader
/// checks against.
pub mod stats {
    pub use crate::stats::compaction_table::{
        format_cf_stats, CompactionStatsInput, LevelStatsRow,
    };
}
