//! [`GarbageMeter`]: counts, per blob file, the blob references a compaction
//! reads and writes; the difference is the garbage it created (RocksDB's
//! `BlobGarbageMeter`).

use std::collections::BTreeMap;

use crate::types::{parse_internal_key, ValueType};
use crate::version::edit::BlobFileGarbage;

use super::index::BlobIndex;

/// Blob count and record bytes flowing through one compaction for one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlobFlow {
    /// Number of blob references.
    pub count: u64,
    /// Sum of the referenced records' sizes.
    pub bytes: u64,
}

impl BlobFlow {
    fn add(&mut self, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
    }
}

/// Inflow and outflow of blob references per blob file for one compaction.
///
/// Feed it every input entry ([`inflow`](Self::inflow)) and every output
/// entry ([`outflow`](Self::outflow)); references to a file that no input
/// referenced (a blob file the compaction itself wrote) are ignored, as in
/// RocksDB.
#[derive(Debug, Clone, Default)]
pub struct GarbageMeter {
    flows: BTreeMap<u64, (BlobFlow, BlobFlow)>,
}

impl GarbageMeter {
    /// An empty meter.
    pub fn new() -> Self {
        Self::default()
    }

    /// A blob reference read from a compaction input, for `user_key`.
    pub fn inflow(&mut self, user_key: &[u8], index: &BlobIndex) {
        let bytes = index.record_size(user_key.len());
        self.flows
            .entry(index.file_number)
            .or_default()
            .0
            .add(bytes);
    }

    /// A blob reference written to a compaction output, for `user_key`.
    pub fn outflow(&mut self, user_key: &[u8], index: &BlobIndex) {
        if let Some((_, out)) = self.flows.get_mut(&index.file_number) {
            out.add(index.record_size(user_key.len()));
        }
    }

    /// [`inflow`](Self::inflow) for a raw entry: does nothing unless `ikey`
    /// is a blob index entry whose value decodes. Returns false for a blob
    /// index entry that does not decode (the caller reports corruption).
    pub fn inflow_entry(&mut self, ikey: &[u8], value: &[u8]) -> bool {
        match entry_blob_index(ikey, value) {
            Some(Some((uk, index))) => {
                self.inflow(uk, &index);
                true
            }
            Some(None) => false,
            None => true,
        }
    }

    /// [`outflow`](Self::outflow) for a raw entry; see
    /// [`inflow_entry`](Self::inflow_entry).
    pub fn outflow_entry(&mut self, ikey: &[u8], value: &[u8]) -> bool {
        match entry_blob_index(ikey, value) {
            Some(Some((uk, index))) => {
                self.outflow(uk, &index);
                true
            }
            Some(None) => false,
            None => true,
        }
    }

    /// Inflow and outflow per blob file, by file number.
    #[cfg(test)]
    pub fn flows(&self) -> impl Iterator<Item = (u64, BlobFlow, BlobFlow)> + '_ {
        self.flows.iter().map(|(n, (i, o))| (*n, *i, *o))
    }

    /// The garbage this compaction created: for every input blob file with
    /// fewer references out than in, the difference. Sorted by file number.
    /// (More out than in cannot happen; it is clamped to no garbage.)
    pub fn garbage(&self) -> Vec<BlobFileGarbage> {
        self.flows
            .iter()
            .filter(|(_, (i, o))| i.count > o.count)
            .map(|(n, (i, o))| BlobFileGarbage {
                number: *n,
                garbage_blob_count: i.count - o.count,
                garbage_blob_bytes: i.bytes.saturating_sub(o.bytes),
            })
            .collect()
    }
}

/// `None`: not a blob index entry. `Some(None)`: a blob index entry that
/// does not decode. `Some(Some(..))`: its user key and index.
fn entry_blob_index<'a>(ikey: &'a [u8], value: &[u8]) -> Option<Option<(&'a [u8], BlobIndex)>> {
    let parsed = parse_internal_key(ikey)?;
    if parsed.value_type != ValueType::BlobIndex {
        return None;
    }
    Some(BlobIndex::decode(value).map(|i| (parsed.user_key, i)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::CompressionType;
    use crate::types::make_internal_key;

    fn idx(file: u64, offset: u64, size: u64) -> BlobIndex {
        BlobIndex {
            file_number: file,
            offset,
            size,
            compression: CompressionType::None,
        }
    }

    #[test]
    fn garbage_is_inflow_minus_outflow_per_file() {
        let mut m = GarbageMeter::new();
        // File 5: three blobs in, one survives.
        m.inflow(b"a", &idx(5, 100, 1000));
        m.inflow(b"bb", &idx(5, 2000, 500));
        m.inflow(b"c", &idx(5, 3000, 10));
        m.outflow(b"bb", &idx(5, 2000, 500));
        // File 7: everything survives: no garbage record.
        m.inflow(b"d", &idx(7, 40, 40));
        m.outflow(b"d", &idx(7, 40, 40));
        // File 9 was written by this compaction: ignored.
        m.outflow(b"e", &idx(9, 40, 40));
        let g = m.garbage();
        assert_eq!(
            g,
            vec![BlobFileGarbage {
                number: 5,
                garbage_blob_count: 2,
                garbage_blob_bytes: (1 + 1000 + 21) + (1 + 10 + 21),
            }]
        );
        let flows: Vec<_> = m.flows().map(|f| f.0).collect();
        assert_eq!(flows, vec![5, 7]);
    }

    #[test]
    fn raw_entries_are_filtered_by_type() {
        let mut m = GarbageMeter::new();
        let i = idx(3, 50, 100);
        let blob_key = make_internal_key(b"k", 9, ValueType::BlobIndex);
        let value_key = make_internal_key(b"k", 8, ValueType::Value);
        assert!(m.inflow_entry(&blob_key, &i.encode()));
        assert!(m.inflow_entry(&value_key, &i.encode())); // inline value: ignored
        assert!(!m.inflow_entry(&blob_key, b"\x01junk"));
        assert!(m.inflow_entry(b"short", b"")); // not an internal key: ignored
        assert_eq!(m.garbage()[0].garbage_blob_count, 1);
        assert!(m.outflow_entry(&blob_key, &i.encode()));
        assert!(m.garbage().is_empty());
    }
}
