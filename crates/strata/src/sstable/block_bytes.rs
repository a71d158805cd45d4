//! A block's bytes, owned or lying in place in a mapped table file.
//!
//! A block read with `pread` or decompressed owns a heap buffer; an
//! uncompressed block of a mapped file (`allow_mmap_reads`) is a range of
//! the map, kept alive by holding the file. Either way the bytes are one
//! pointer and a length, so reading them costs no branch. A heap buffer
//! goes back to its thread's pool when the bytes are dropped
//! (`block_buffers`).

use std::sync::Arc;

use crate::fs::RandomAccessFile;

/// What keeps a [`BlockBytes`]'s memory alive.
enum Owner {
    Heap(Vec<u8>),
    /// Held, never read: the file keeps its map alive.
    Mapped(#[allow(dead_code)] Arc<dyn RandomAccessFile>),
}

/// Immutable bytes of one block.
pub struct BlockBytes {
    ptr: *const u8,
    len: usize,
    _owner: Owner,
}

// SAFETY: the bytes are immutable for the value's life and owned (a Vec or
// a shared file whose map is `Sync`), so sharing or sending them is safe.
unsafe impl Send for BlockBytes {}
// SAFETY: as above; nothing mutates through a shared reference.
unsafe impl Sync for BlockBytes {}

impl BlockBytes {
    /// Bytes held in place in `file`'s map, `range` of it; `None` if the
    /// file has no map or the range does not lie inside it.
    pub fn mapped(file: &Arc<dyn RandomAccessFile>, range: std::ops::Range<usize>) -> Option<Self> {
        let bytes = file.mapped()?.get(range)?;
        Some(BlockBytes {
            ptr: bytes.as_ptr(),
            len: bytes.len(),
            _owner: Owner::Mapped(file.clone()),
        })
    }

    /// True if the bytes lie in a mapped file rather than on the heap.
    pub fn is_mapped(&self) -> bool {
        matches!(self._owner, Owner::Mapped(_))
    }

    /// The bytes as an owned vector (a copy only when mapped).
    pub fn into_vec(mut self) -> Vec<u8> {
        if let Owner::Heap(v) = &mut self._owner {
            // The emptied vector left behind is not kept on drop.
            return std::mem::take(v);
        }
        self.to_vec()
    }
}

/// A heap block's buffer goes back to its thread's pool
/// ([`super::block_buffers`]) for the next block read with `pread`.
impl Drop for BlockBytes {
    fn drop(&mut self) {
        if let Owner::Heap(v) = &mut self._owner {
            super::block_buffers::give(std::mem::take(v));
        }
    }
}

impl From<Vec<u8>> for BlockBytes {
    fn from(v: Vec<u8>) -> Self {
        BlockBytes {
            ptr: v.as_ptr(),
            len: v.len(),
            _owner: Owner::Heap(v),
        }
    }
}

impl std::ops::Deref for BlockBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: `ptr..ptr+len` lies in memory `_owner` keeps alive and
        // unchanged: a Vec's heap buffer (moving the Vec does not move it,
        // and nothing mutates it), or a file's map, which the
        // `RandomAccessFile::mapped` contract keeps valid while the file
        // lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl std::fmt::Debug for BlockBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockBytes")
            .field("len", &self.len)
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct InMemoryMap(Vec<u8>);

    impl RandomAccessFile for InMemoryMap {
        fn read_at(&self, _: u64, _: usize) -> crate::Result<Vec<u8>> {
            unreachable!("only the map is read")
        }
        fn size(&self) -> u64 {
            self.0.len() as u64
        }
        fn mapped(&self) -> Option<&[u8]> {
            Some(&self.0)
        }
    }

    struct NotMapped;

    impl RandomAccessFile for NotMapped {
        fn read_at(&self, _: u64, len: usize) -> crate::Result<Vec<u8>> {
            Ok(vec![0; len])
        }
        fn size(&self) -> u64 {
            1
        }
    }

    #[test]
    fn heap_bytes_survive_moves_of_their_owner() {
        let b = BlockBytes::from(b"heap block".to_vec());
        let moved = vec![b];
        assert_eq!(&*moved[0], b"heap block");
        assert!(!moved[0].is_mapped());
        let v = moved.into_iter().next().unwrap().into_vec();
        assert_eq!(v, b"heap block");
    }

    #[test]
    fn a_dropped_heap_block_gives_its_buffer_to_the_next_read() {
        let mut v = super::super::block_buffers::take(4096);
        v.extend_from_slice(&[7; 4096]);
        let ptr = v.as_ptr();
        drop(BlockBytes::from(v));
        let reused = super::super::block_buffers::take(4096);
        assert_eq!(reused.as_ptr(), ptr);
        // A vector taken out of a block is the caller's: nothing goes back.
        let mut w = super::super::block_buffers::take(4096);
        w.extend_from_slice(&[1; 4096]);
        let ptr = w.as_ptr();
        let out = BlockBytes::from(w).into_vec();
        assert_eq!(out.as_ptr(), ptr);
        assert_eq!(out.len(), 4096);
    }

    #[test]
    fn mapped_bytes_outlive_the_callers_handle_on_the_file() {
        let file: Arc<dyn RandomAccessFile> = Arc::new(InMemoryMap(b"0123456789".to_vec()));
        let b = BlockBytes::mapped(&file, 2..6).unwrap();
        drop(file);
        assert_eq!(&*b, b"2345");
        assert!(b.is_mapped());
        assert_eq!(b.into_vec(), b"2345");
    }

    #[test]
    fn a_range_outside_the_map_or_a_file_without_one_gives_none() {
        let file: Arc<dyn RandomAccessFile> = Arc::new(InMemoryMap(vec![0; 4]));
        assert!(BlockBytes::mapped(&file, 2..5).is_none());
        let plain: Arc<dyn RandomAccessFile> = Arc::new(NotMapped);
        assert!(BlockBytes::mapped(&plain, 0..1).is_none());
    }
}
