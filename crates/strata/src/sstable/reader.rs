//! Opens a table file and reads it: point lookups through the bloom filter
//! and index, and a two-level iterator (index block, then data blocks).
//!
//! Byte layout: see `docs/formats/sstable.md`.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::iter::InternalIterator;
use crate::pinnable::PinnableSlice;
use crate::range_del::FragmentedTombstones;
use crate::stats::{Histogram, Statistics, Ticker};
use crate::types::{compare_internal_keys, user_key};

use super::auto_readahead::{AutoReadahead, SequentialReads};
use super::block::{bytewise_cmp, Block, BlockIter};
use super::block_cache::BlockCache;
use super::bloom::BloomFilter;
use super::compression::CompressionType;
use super::data_block_hash::HashLookup;
use super::format::{
    BlockHandle, BlockSource, Footer, DATA_BLOCK_HASH_INDEX, FOOTER_SIZE,
    INDEX_WITHOUT_VALUE_LENGTH,
};
use super::properties::TableProperties;
use super::range_del_block::{decode_range_del_block, META_RANGE_DEL};
use super::readahead::{PrefetchBuffer, ReadaheadFile};
use super::writer::{META_FILTER, META_PROPERTIES};

/// Per-read options (RocksDB's `ReadOptions` subset relevant to tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOpts {
    /// Check each data block's checksum when it is read from the file.
    pub verify_checksums: bool,
    /// Put blocks read from the file into the block cache.
    pub fill_cache: bool,
    /// The read is a compaction's: block reads are timed into
    /// `rocksdb.read.block.compaction.micros` instead of
    /// `rocksdb.read.block.get.micros`.
    pub for_compaction: bool,
    /// The table is on the last level (`num_levels - 1`): its data-block
    /// reads from the file count in `rocksdb.last.level.read.*`, else in
    /// `rocksdb.non.last.level.read.*`.
    pub last_level: bool,
    /// How an iterator reads ahead of the data blocks it reads from the
    /// file. Only iterators over files read with `pread` use it: a mapped
    /// file's blocks are read in place, and Gets read one block.
    pub readahead: Readahead,
}

/// How a table iterator reads ahead of the blocks it reads from the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readahead {
    /// Each block on its own.
    Off,
    /// Through a window of this many bytes, refilled by a read outside it
    /// (`sstable/readahead.rs`): compaction read-ahead
    /// (`compaction_readahead_size`) and `ReadOptions::readahead_size`.
    Fixed(usize),
    /// Automatic read-ahead once the iterator reads the file in order
    /// (`sstable/auto_readahead.rs`).
    Auto(AutoReadahead),
}

impl Readahead {
    /// A window of `size` bytes, or [`Readahead::Off`] for 0.
    pub fn fixed(size: usize) -> Self {
        if size == 0 {
            Readahead::Off
        } else {
            Readahead::Fixed(size)
        }
    }
}

impl ReadOpts {
    /// These options for a table on `level` of `num_levels` levels
    /// (`last_level` set for the last one).
    pub fn at_level(self, level: usize, num_levels: usize) -> Self {
        ReadOpts {
            last_level: level + 1 == num_levels,
            ..self
        }
    }
}

impl Default for ReadOpts {
    /// RocksDB's defaults: verify and fill the cache.
    fn default() -> Self {
        ReadOpts {
            verify_checksums: true,
            fill_cache: true,
            for_compaction: false,
            last_level: false,
            readahead: Readahead::Off,
        }
    }
}

/// An entry a point read found: its internal key, and its value left in
/// the block it lies in.
pub type PinnedEntry = (Vec<u8>, PinnableSlice);

/// An open table file.
pub struct Table {
    file: Arc<dyn RandomAccessFile>,
    file_number: u64,
    file_name: Arc<str>,
    file_size: u64,
    /// Where the footer starts; every block lies before it.
    data_end: u64,
    footer: Footer,
    index: Arc<Block>,
    filter: Option<BloomFilter>,
    properties: TableProperties,
    /// The range-deletion block's tombstones, fragmented (empty without
    /// the block).
    range_tombstones: Arc<FragmentedTombstones>,
    block_cache: Option<Arc<BlockCache>>,
    stats: Option<Arc<Statistics>>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("file_name", &self.file_name)
            .field("file_size", &self.file_size)
            .finish()
    }
}

impl Table {
    /// Opens a table: reads and checks the footer, metaindex, properties,
    /// filter, range-deletion and index blocks (always verifying their
    /// checksums).
    pub fn open(
        file: Arc<dyn RandomAccessFile>,
        file_number: u64,
        file_name: String,
        block_cache: Option<Arc<BlockCache>>,
        stats: Option<Arc<Statistics>>,
    ) -> Result<Table> {
        let name: Arc<str> = Arc::from(file_name);
        let file_size = file.size();
        if file_size < FOOTER_SIZE as u64 {
            return Err(Error::corruption(
                &*name,
                0,
                format!("file is too short ({file_size} bytes) to be a table"),
            ));
        }
        let data_end = file_size - FOOTER_SIZE as u64;
        let fbytes = file.read_at(data_end, FOOTER_SIZE)?;
        let footer = Footer::decode(&fbytes, &name, data_end)?;
        let blocks = BlockSource {
            file: &file,
            file_name: &name,
            data_end,
            stats: stats.as_deref(),
        };
        let meta = Arc::new(blocks.read_block(footer.metaindex, true)?);
        let mut filter_handle = None;
        let mut props_handle = None;
        let mut range_del_handle = None;
        let mut it = meta.iter(bytewise_cmp);
        it.seek_to_first();
        while it.valid() {
            let h = BlockHandle::decode(it.value()).ok_or_else(|| {
                Error::corruption(
                    &*name,
                    footer.metaindex.offset,
                    "bad block handle in metaindex",
                )
            })?;
            match it.key() {
                k if k == META_FILTER.as_bytes() => filter_handle = Some(h),
                k if k == META_PROPERTIES.as_bytes() => props_handle = Some(h),
                k if k == META_RANGE_DEL.as_bytes() => range_del_handle = Some(h),
                _ => {}
            }
            it.next();
        }
        it.status()?;
        let props_handle = props_handle.ok_or_else(|| {
            Error::corruption(
                &*name,
                footer.metaindex.offset,
                "metaindex has no properties block",
            )
        })?;
        let props_block = Arc::new(blocks.read_block(props_handle, true)?);
        let properties = TableProperties::decode(&props_block)?;
        let filter = match filter_handle {
            None => None,
            Some(h) => {
                let (contents, t) = blocks.read_raw_block(h, true)?;
                if t != CompressionType::None as u8 {
                    return Err(Error::corruption(
                        &*name,
                        h.offset,
                        "filter block is compressed",
                    ));
                }
                Some(
                    BloomFilter::new(contents.into_vec())
                        .map_err(|m| Error::corruption(&*name, h.offset, m))?,
                )
            }
        };
        let range_tombstones = match range_del_handle {
            None => FragmentedTombstones::default(),
            Some(h) => {
                let block = Arc::new(blocks.read_block(h, true)?);
                decode_range_del_block(&block)?
            }
        };
        let range_tombstones = Arc::new(range_tombstones);
        let mut index = blocks.read_block(footer.index, true)?;
        if footer.format_version >= INDEX_WITHOUT_VALUE_LENGTH {
            index = index.with_handle_values();
        }
        let index = Arc::new(index);
        Ok(Table {
            file,
            file_number,
            file_name: name,
            file_size,
            data_end,
            footer,
            index,
            filter,
            properties,
            range_tombstones,
            block_cache,
            stats,
        })
    }

    fn tick(&self, t: Ticker) {
        if let Some(s) = &self.stats {
            s.record_tick(t, 1);
        }
    }

    /// The file number given at open.
    pub fn file_number(&self) -> u64 {
        self.file_number
    }

    /// The file name used in errors.
    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// Size of the file in bytes.
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// The table's range tombstones, fragmented (empty if it has none).
    pub fn range_tombstones(&self) -> &Arc<FragmentedTombstones> {
        &self.range_tombstones
    }

    /// The properties block.
    pub fn properties(&self) -> &TableProperties {
        &self.properties
    }

    /// False if the bloom filter rules `user_key` out (true without a filter).
    pub fn may_contain(&self, user_key: &[u8]) -> bool {
        self.filter.as_ref().is_none_or(|f| f.may_contain(user_key))
    }

    /// True if the table has a bloom filter.
    pub fn has_filter(&self) -> bool {
        self.filter.is_some()
    }

    /// An iterator over the index block, ordered as its separators are:
    /// bytewise for user-key separators, internal-key order otherwise.
    fn index_iter(&self) -> BlockIter {
        if self.properties.index_key_is_user_key {
            self.index.iter(bytewise_cmp)
        } else {
            self.index.internal_iter()
        }
    }

    /// What to seek the index with for an internal key: its user key when
    /// the separators are user keys.
    fn index_target<'a>(&self, ikey: &'a [u8]) -> &'a [u8] {
        if self.properties.index_key_is_user_key {
            user_key(ikey)
        } else {
            ikey
        }
    }

    fn corrupt_index(&self) -> Error {
        Error::corruption(
            &*self.file_name,
            self.footer.index.offset,
            "bad block handle in index",
        )
    }

    /// Reads a data block through the block cache, counting what RocksDB
    /// counts for a data block: a hit (`block.cache.hit`, `.data.hit`, and
    /// its bytes in `block.cache.bytes.read`), or a miss (`.miss`,
    /// `.data.miss`) followed, when `fill_cache` is set, by an insert
    /// (`.add`, `.data.add`, `.data.bytes.insert`, `.bytes.write`, and
    /// `.add.redundant`/`.data.add.redundant` if another reader had just
    /// cached the same block).
    ///
    /// From a mapped file, an uncompressed block is a reference into the
    /// map: a miss reads it in place (checking its checksum) and caches
    /// that reference, so neither a miss nor a hit copies it, and a hit
    /// skips the checksum as with a file read.
    fn read_data_block(&self, handle: BlockHandle, opts: &ReadOpts) -> Result<Arc<Block>> {
        self.read_data_block_from(&self.file, handle, opts)
    }

    /// [`Self::read_data_block`], reading from `file` (the table's file, or
    /// a read-ahead window over it) on a cache miss.
    fn read_data_block_from(
        &self,
        file: &Arc<dyn RandomAccessFile>,
        handle: BlockHandle,
        opts: &ReadOpts,
    ) -> Result<Arc<Block>> {
        let stats = self.stats.as_deref();
        let Some(cache) = &self.block_cache else {
            let b = self.load_block(file, handle, opts.verify_checksums, opts.for_compaction)?;
            self.count_file_read(handle, opts);
            return Ok(Arc::new(b));
        };
        if let Some(b) = cache.lookup(self.file_number, handle.offset) {
            if let Some(s) = stats {
                s.record_tick(Ticker::BlockCacheHit, 1);
                s.record_tick(Ticker::BlockCacheDataHit, 1);
                s.record_tick(Ticker::BlockCacheBytesRead, b.size() as u64);
            }
            return Ok(b);
        }
        if let Some(s) = stats {
            s.record_tick(Ticker::BlockCacheMiss, 1);
            s.record_tick(Ticker::BlockCacheDataMiss, 1);
        }
        let b =
            Arc::new(self.load_block(file, handle, opts.verify_checksums, opts.for_compaction)?);
        self.count_file_read(handle, opts);
        if opts.fill_cache && cache.capacity() > 0 {
            let charge = b.size() as u64;
            let redundant = cache.insert(self.file_number, handle.offset, b.clone());
            if let Some(s) = stats {
                s.record_tick(Ticker::BlockCacheAdd, 1);
                s.record_tick(Ticker::BlockCacheDataAdd, 1);
                s.record_tick(Ticker::BlockCacheDataBytesInsert, charge);
                s.record_tick(Ticker::BlockCacheBytesWrite, charge);
                if redundant {
                    s.record_tick(Ticker::BlockCacheAddRedundant, 1);
                    s.record_tick(Ticker::BlockCacheDataAddRedundant, 1);
                }
            }
        }
        Ok(b)
    }

    /// Counts one data-block read from the file by the level it was read
    /// on (`rocksdb.last.level.read.*` / `rocksdb.non.last.level.read.*`):
    /// the block and its trailer.
    fn count_file_read(&self, handle: BlockHandle, opts: &ReadOpts) {
        if let Some(s) = &self.stats {
            let (bytes, count) = if opts.last_level {
                (Ticker::LastLevelReadBytes, Ticker::LastLevelReadCount)
            } else {
                (Ticker::NonLastLevelReadBytes, Ticker::NonLastLevelReadCount)
            };
            s.record_tick(
                bytes,
                handle.size + super::format::BLOCK_TRAILER_SIZE as u64,
            );
            s.record_tick(count, 1);
        }
    }

    /// Reads and decodes one data block from the file (no cache), timing
    /// it into `rocksdb.read.block.get.micros` (any read but a compaction's,
    /// as in RocksDB) or `rocksdb.read.block.compaction.micros`.
    fn load_block(
        &self,
        file: &Arc<dyn RandomAccessFile>,
        handle: BlockHandle,
        verify: bool,
        for_compaction: bool,
    ) -> Result<Block> {
        let stats = self.stats.as_deref();
        let start = stats.map(|_| std::time::Instant::now());
        let block = BlockSource {
            file,
            file_name: &self.file_name,
            data_end: self.data_end,
            stats,
        }
        .read_block(handle, verify)?;
        if block.has_hash_index() && self.footer.format_version < DATA_BLOCK_HASH_INDEX {
            return Err(Error::corruption(
                &*self.file_name,
                handle.offset,
                format!(
                    "data block has a hash index, which table format version {} cannot have",
                    self.footer.format_version
                ),
            ));
        }
        if let (Some(s), Some(t)) = (stats, start) {
            let h = if for_compaction {
                Histogram::ReadBlockCompactionMicros
            } else {
                Histogram::ReadBlockGetMicros
            };
            s.record_histogram(h, t.elapsed().as_micros() as u64);
        }
        Ok(block)
    }

    /// The first entry whose internal key is `>= lookup_ikey`, if it has the
    /// same user key; the caller interprets its type and sequence number.
    /// The value is copied out of its block; see [`Table::get_pinned`].
    pub fn get(&self, lookup_ikey: &[u8], opts: &ReadOpts) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        Ok(self
            .get_pinned(lookup_ikey, opts)?
            .map(|(k, v)| (k, v.into_vec())))
    }

    /// [`Table::get`], with the value left in the data block it lies in.
    pub fn get_pinned(&self, lookup_ikey: &[u8], opts: &ReadOpts) -> Result<Option<PinnedEntry>> {
        Ok(self.get_probe(lookup_ikey, opts)?.0)
    }

    /// [`Table::get_pinned`], and whether it read a data block (false when
    /// the filter or the index ruled the table out): what read-triggered
    /// compaction charges a table for.
    pub fn get_probe(
        &self,
        lookup_ikey: &[u8],
        opts: &ReadOpts,
    ) -> Result<(Option<PinnedEntry>, bool)> {
        let uk = user_key(lookup_ikey);
        if let Some(f) = &self.filter {
            if !f.may_contain(uk) {
                self.tick(Ticker::BloomFilterUseful);
                return Ok((None, false));
            }
            self.tick(Ticker::BloomFilterFullPositive);
        }
        let mut idx = self.index_iter();
        idx.seek(self.index_target(lookup_ikey));
        if !idx.valid() {
            idx.status()?;
            return Ok((None, false));
        }
        let handle = BlockHandle::decode(idx.value()).ok_or_else(|| self.corrupt_index())?;
        let block = self.read_data_block(handle, opts)?;
        let mut it = block.internal_iter();
        // The index sought found the one block that can hold the first
        // entry >= the lookup key; if that block holds no entry of its user
        // key, neither does the table.
        match block.hash_lookup(uk) {
            HashLookup::Absent => return Ok((None, true)),
            HashLookup::Restart(r) => it.seek_in_restart(r, lookup_ikey),
            HashLookup::Search => it.seek(lookup_ikey),
        }
        if !it.valid() {
            it.status()?;
            return Ok((None, true));
        }
        if user_key(it.key()) != uk {
            return Ok((None, true));
        }
        if self.filter.is_some() {
            self.tick(Ticker::BloomFilterFullTruePositive);
        }
        let value = PinnableSlice::pinned(block.clone(), it.value_range()).ok_or_else(|| {
            Error::corruption(&*self.file_name, handle.offset, "value out of block")
        })?;
        Ok((Some((it.key().to_vec(), value)), true))
    }

    /// An iterator over every entry.
    pub fn iter(self: &Arc<Self>, opts: ReadOpts) -> TableIterator {
        // A mapped file needs no read-ahead: its blocks are read in place.
        let mode = match self.file.mapped() {
            Some(_) => Readahead::Off,
            None => opts.readahead,
        };
        let (readahead, auto) = match mode {
            Readahead::Off => (None, None),
            Readahead::Fixed(size) => (
                Some(Arc::new(ReadaheadFile::new(self.file.clone(), size))
                    as Arc<dyn RandomAccessFile>),
                None,
            ),
            Readahead::Auto(cfg) => (None, Some((cfg, SequentialReads::default()))),
        };
        TableIterator {
            table: self.clone(),
            readahead,
            auto,
            opts,
            index_iter: self.index_iter(),
            data_iter: None,
            status: None,
        }
    }

    /// Approximate file offset where `ikey` would be (the start of its data
    /// block; the end of the data for keys past the last block).
    pub fn approximate_offset_of(&self, ikey: &[u8]) -> u64 {
        let mut idx = self.index_iter();
        idx.seek(self.index_target(ikey));
        if idx.valid() {
            if let Some(h) = BlockHandle::decode(idx.value()) {
                return h.offset;
            }
        }
        self.footer.metaindex.offset
    }

    /// The index entries: (separator, data block handle). Separators are
    /// internal keys whatever the index stores: a user-key separator `s`
    /// comes back as `(s, seq 0, type 0)`, the largest internal key of `s`,
    /// so every key of the block still sorts at or below it.
    pub fn index_entries(&self) -> Result<Vec<(Vec<u8>, BlockHandle)>> {
        let mut out = Vec::new();
        let mut idx = self.index_iter();
        idx.seek_to_first();
        while idx.valid() {
            let h = BlockHandle::decode(idx.value()).ok_or_else(|| self.corrupt_index())?;
            let sep = if self.properties.index_key_is_user_key {
                let mut k = idx.key().to_vec();
                k.extend_from_slice(&0u64.to_le_bytes());
                k
            } else {
                idx.key().to_vec()
            };
            out.push((sep, h));
            idx.next();
        }
        idx.status()?;
        Ok(out)
    }

    /// Reads every data block from the file (bypassing the cache) and checks
    /// its checksum, compression and entry encoding, that keys strictly
    /// increase across the whole table, and that each block's keys are not
    /// above its index separator.
    pub fn verify_checksums(&self) -> Result<()> {
        let mut prev: Vec<u8> = Vec::new();
        let mut first = true;
        for (sep, h) in self.index_entries()? {
            let block = Arc::new(self.load_block(&self.file, h, true, false)?);
            let mut it = block.internal_iter();
            it.seek_to_first();
            while it.valid() {
                let k = it.key();
                let in_order = first || compare_internal_keys(&prev, k) == Ordering::Less;
                if !in_order || compare_internal_keys(k, &sep) == Ordering::Greater {
                    return Err(Error::corruption(
                        &*self.file_name,
                        h.offset,
                        "keys out of order in data block",
                    ));
                }
                first = false;
                prev.clear();
                prev.extend_from_slice(k);
                it.next();
            }
            it.status()?;
        }
        Ok(())
    }
}

/// A two-level iterator over a table: the index block picks data blocks,
/// which are loaded through the block cache. Any error stops the iterator
/// (it becomes invalid and `status()` reports the error).
pub struct TableIterator {
    table: Arc<Table>,
    /// The read-ahead window data blocks are read through, if any: a
    /// [`ReadaheadFile`] for [`Readahead::Fixed`], or the
    /// [`PrefetchBuffer`] automatic read-ahead sets up on a file the OS
    /// cannot read ahead (direct I/O).
    readahead: Option<Arc<dyn RandomAccessFile>>,
    /// Automatic read-ahead's options and its view of the reads so far.
    auto: Option<(AutoReadahead, SequentialReads)>,
    opts: ReadOpts,
    index_iter: BlockIter,
    data_iter: Option<BlockIter>,
    status: Option<Error>,
}

impl TableIterator {
    fn set_error(&mut self, e: Error) {
        if self.status.is_none() {
            self.status = Some(e);
        }
        self.data_iter = None;
    }

    /// Points `data_iter` at the block the index iterator is on; false (and
    /// no data iterator) at the end of the index or on error.
    fn init_data_block(&mut self) -> bool {
        if self.status.is_some() {
            return false;
        }
        if !self.index_iter.valid() {
            if let Err(e) = self.index_iter.status() {
                self.set_error(e);
            }
            self.data_iter = None;
            return false;
        }
        let Some(h) = BlockHandle::decode(self.index_iter.value()) else {
            let e = self.table.corrupt_index();
            self.set_error(e);
            return false;
        };
        if let Some(d) = &self.data_iter {
            if d.block().offset() == h.offset {
                return true;
            }
        }
        if let Some((cfg, reads)) = &mut self.auto {
            let len = h.size + super::format::BLOCK_TRAILER_SIZE as u64;
            if let Some((offset, n)) = reads.on_block(*cfg, h.offset, len) {
                self.read_ahead(offset, n);
            }
        }
        let file = self.readahead.as_ref().unwrap_or(&self.table.file);
        match self.table.read_data_block_from(file, h, &self.opts) {
            Ok(b) => {
                match &mut self.data_iter {
                    Some(d) => d.set_block(b),
                    None => self.data_iter = Some(b.internal_iter()),
                }
                true
            }
            Err(e) => {
                self.set_error(e);
                false
            }
        }
    }

    /// Asks for `len` bytes at `offset` ahead of the reads to come (clamped
    /// to the table's data): from the OS's page cache if the file takes the
    /// hint, else into a buffer of the iterator's own, which later block
    /// reads go through.
    fn read_ahead(&mut self, offset: u64, len: u64) {
        let len = len.min(self.table.data_end.saturating_sub(offset)) as usize;
        if len == 0 {
            return;
        }
        if let Some(s) = &self.table.stats {
            s.record_tick(Ticker::PrefetchBytes, len as u64);
        }
        let file = self.readahead.as_ref().unwrap_or(&self.table.file);
        if !file.prefetch(offset, len) {
            let buffer = PrefetchBuffer::new(self.table.file.clone(), self.table.stats.clone());
            buffer.prefetch(offset, len);
            self.readahead = Some(Arc::new(buffer));
        }
    }

    /// Checks the data iterator after a move; true if it needs a new block.
    fn data_exhausted(&mut self) -> bool {
        match &self.data_iter {
            Some(d) if d.valid() => false,
            Some(d) => match d.status() {
                Ok(()) => true,
                Err(e) => {
                    self.set_error(e);
                    false
                }
            },
            None => false,
        }
    }

    fn skip_empty_forward(&mut self) {
        while self.data_exhausted() {
            self.index_iter.next();
            if !self.init_data_block() {
                return;
            }
            if let Some(d) = &mut self.data_iter {
                d.seek_to_first();
            }
        }
    }

    fn skip_empty_backward(&mut self) {
        while self.data_exhausted() {
            self.index_iter.prev();
            if !self.init_data_block() {
                return;
            }
            if let Some(d) = &mut self.data_iter {
                d.seek_to_last();
            }
        }
    }
}

impl InternalIterator for TableIterator {
    fn valid(&self) -> bool {
        self.status.is_none() && self.data_iter.as_ref().is_some_and(|d| d.valid())
    }

    fn seek_to_first(&mut self) {
        self.index_iter.seek_to_first();
        if self.init_data_block() {
            if let Some(d) = &mut self.data_iter {
                d.seek_to_first();
            }
        }
        self.skip_empty_forward();
    }

    fn seek_to_last(&mut self) {
        self.index_iter.seek_to_last();
        if self.init_data_block() {
            if let Some(d) = &mut self.data_iter {
                d.seek_to_last();
            }
        }
        self.skip_empty_backward();
    }

    fn seek(&mut self, target: &[u8]) {
        self.index_iter.seek(self.table.index_target(target));
        if self.init_data_block() {
            if let Some(d) = &mut self.data_iter {
                d.seek(target);
            }
        }
        self.skip_empty_forward();
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.index_iter.seek(self.table.index_target(target));
        if !self.index_iter.valid() {
            if let Err(e) = self.index_iter.status() {
                self.set_error(e);
                return;
            }
            self.index_iter.seek_to_last();
        }
        if self.init_data_block() {
            if let Some(d) = &mut self.data_iter {
                d.seek_for_prev(target);
            }
        }
        self.skip_empty_backward();
    }

    fn next(&mut self) {
        debug_assert!(self.valid());
        if let Some(d) = &mut self.data_iter {
            d.next();
        }
        self.skip_empty_forward();
    }

    fn prev(&mut self) {
        debug_assert!(self.valid());
        if let Some(d) = &mut self.data_iter {
            d.prev();
        }
        self.skip_empty_backward();
    }

    fn key(&self) -> &[u8] {
        self.data_iter.as_ref().map_or(&[], |d| d.key())
    }

    fn value(&self) -> &[u8] {
        self.data_iter.as_ref().map_or(&[], |d| d.value())
    }

    fn pinned_value(&self) -> Option<PinnableSlice> {
        let d = self.data_iter.as_ref()?;
        PinnableSlice::pinned(d.block().clone(), d.value_range())
    }

    fn status(&self) -> Result<()> {
        if let Some(e) = &self.status {
            return Err(e.duplicate());
        }
        self.index_iter.status()?;
        match &self.data_iter {
            Some(d) => d.status(),
            None => Ok(()),
        }
    }
}
