//! The option values that are RocksDB enums, each with RocksDB's names.

use std::str::FromStr;

use crate::error::{Error, Result};

/// How SSTs are organised into levels and merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionStyle {
    /// Leveled compaction (`kCompactionStyleLevel`, db_bench `0`).
    Level,
    /// Universal (tiered) compaction (`kCompactionStyleUniversal`, db_bench
    /// `1`): sorted runs merged by size ratio and size amplification; less
    /// write amplification, more space and read amplification.
    Universal,
    /// FIFO compaction (`kCompactionStyleFIFO`, db_bench `2`): every table
    /// stays in L0 and the oldest are deleted once all exceed
    /// `compaction_options_fifo.max_table_files_size`; for data that
    /// expires by age (logs, time series). Old data is dropped, not merged.
    Fifo,
}

impl CompactionStyle {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            CompactionStyle::Level => "kCompactionStyleLevel",
            CompactionStyle::Universal => "kCompactionStyleUniversal",
            CompactionStyle::Fifo => "kCompactionStyleFIFO",
        }
    }
}

impl FromStr for CompactionStyle {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kCompactionStyleLevel" | "0" | "level" => Ok(CompactionStyle::Level),
            "kCompactionStyleUniversal" | "1" | "universal" => Ok(CompactionStyle::Universal),
            "kCompactionStyleFIFO" | "2" | "fifo" => Ok(CompactionStyle::Fifo),
            other => Err(Error::InvalidArgument(format!(
                "compaction_style: unknown value '{other}'"
            ))),
        }
    }
}

/// How a point lookup finds its key inside a data block (RocksDB's
/// `BlockBasedTableOptions::DataBlockIndexType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataBlockIndexType {
    /// Binary search over the block's restart points, then a walk through
    /// one restart interval (`kDataBlockBinarySearch`, db_bench
    /// `--use_data_block_hash_index=false`).
    BinarySearch,
    /// As above, plus a hash index over each block's user keys naming
    /// their restart interval (`kDataBlockBinaryAndHash`, db_bench
    /// `--use_data_block_hash_index=true`): a Get goes straight to the
    /// interval, and usually knows a key absent without comparing a key,
    /// for about one byte per `data_block_hash_table_util_ratio` keys of
    /// each block. Iterators still binary search. Blocks with more than
    /// 254 restart points are written without the index. Tables built
    /// with it are format version 4 (docs/formats/sstable.md).
    BinaryAndHash,
}

impl DataBlockIndexType {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            DataBlockIndexType::BinarySearch => "kDataBlockBinarySearch",
            DataBlockIndexType::BinaryAndHash => "kDataBlockBinaryAndHash",
        }
    }
}

impl FromStr for DataBlockIndexType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kDataBlockBinarySearch" | "0" => Ok(DataBlockIndexType::BinarySearch),
            "kDataBlockBinaryAndHash" | "1" => Ok(DataBlockIndexType::BinaryAndHash),
            other => Err(Error::InvalidArgument(format!(
                "data_block_index_type: unknown value '{other}' (kDataBlockBinarySearch or kDataBlockBinaryAndHash)"
            ))),
        }
    }
}

/// Which file of an over-full level a leveled compaction takes first
/// (RocksDB's `CompactionPri`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionPri {
    /// The largest file first, deletions weighted up (`kByCompensatedSize`,
    /// 0): frees the most space per compaction.
    ByCompensatedSize,
    /// The file whose newest entry is oldest first
    /// (`kOldestLargestSeqFirst`, 1): cold ranges go down first; suits
    /// updates concentrated on hot keys.
    OldestLargestSeqFirst,
    /// The file whose oldest entry is oldest first
    /// (`kOldestSmallestSeqFirst`, 2): the longest-waiting data goes down
    /// first; suits uniform updates.
    OldestSmallestSeqFirst,
    /// The file that overlaps the fewest bytes in the next level per byte of
    /// its own first (`kMinOverlappingRatio`, 3, the default): the least
    /// write amplification per compaction.
    MinOverlappingRatio,
}

impl CompactionPri {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            CompactionPri::ByCompensatedSize => "kByCompensatedSize",
            CompactionPri::OldestLargestSeqFirst => "kOldestLargestSeqFirst",
            CompactionPri::OldestSmallestSeqFirst => "kOldestSmallestSeqFirst",
            CompactionPri::MinOverlappingRatio => "kMinOverlappingRatio",
        }
    }
}

impl FromStr for CompactionPri {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kByCompensatedSize" | "0" => Ok(CompactionPri::ByCompensatedSize),
            "kOldestLargestSeqFirst" | "1" => Ok(CompactionPri::OldestLargestSeqFirst),
            "kOldestSmallestSeqFirst" | "2" => Ok(CompactionPri::OldestSmallestSeqFirst),
            "kMinOverlappingRatio" | "3" => Ok(CompactionPri::MinOverlappingRatio),
            "kRoundRobin" | "4" => Err(Error::NotSupported(
                "compaction_pri=kRoundRobin: round-robin compaction (per-level cursors kept in the MANIFEST) is not implemented".into(),
            )),
            other => Err(Error::InvalidArgument(format!(
                "compaction_pri: unknown value '{other}' (kByCompensatedSize, kOldestLargestSeqFirst, kOldestSmallestSeqFirst or kMinOverlappingRatio)"
            ))),
        }
    }
}

/// When separated values are put into the blob cache as they are written
/// (RocksDB's `PrepopulateBlobCache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrepopulateBlobCache {
    /// Never (`kDisable`).
    Disable,
    /// Values written by flushes (`kFlushOnly`): recent writes are hot.
    FlushOnly,
}

impl PrepopulateBlobCache {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            PrepopulateBlobCache::Disable => "kDisable",
            PrepopulateBlobCache::FlushOnly => "kFlushOnly",
        }
    }
}

impl FromStr for PrepopulateBlobCache {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kDisable" | "0" | "disable" => Ok(PrepopulateBlobCache::Disable),
            "kFlushOnly" | "1" | "flush_only" => Ok(PrepopulateBlobCache::FlushOnly),
            other => Err(Error::InvalidArgument(format!(
                "prepopulate_blob_cache: unknown value '{other}' (kDisable or kFlushOnly)"
            ))),
        }
    }
}

/// The CPU priority of a pool of background threads (RocksDB's
/// `CpuPriority`, set there with `Env::LowerThreadPoolCPUPriority`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuPriority {
    /// Run only when the CPU would otherwise idle (`kIdle`: Linux's
    /// `SCHED_IDLE`).
    Idle,
    /// The lowest nice level (`kLow`: nice 19).
    Low,
    /// The process's own priority (`kNormal`): nothing is changed.
    Normal,
    /// The highest nice level (`kHigh`: nice -20; needs `CAP_SYS_NICE`).
    High,
}

impl CpuPriority {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            CpuPriority::Idle => "kIdle",
            CpuPriority::Low => "kLow",
            CpuPriority::Normal => "kNormal",
            CpuPriority::High => "kHigh",
        }
    }
}

impl FromStr for CpuPriority {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kIdle" | "idle" => Ok(CpuPriority::Idle),
            "kLow" | "low" => Ok(CpuPriority::Low),
            "kNormal" | "normal" => Ok(CpuPriority::Normal),
            "kHigh" | "high" => Ok(CpuPriority::High),
            other => Err(Error::InvalidArgument(format!(
                "cpu priority: unknown value '{other}' (kIdle, kLow, kNormal or kHigh)"
            ))),
        }
    }
}
