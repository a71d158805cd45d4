//! LevelDB's C API (`leveldb/c.h`) for `strata bench --engine=leveldb`:
//! the functions its adapter calls, declared by hand, and what was linked.
//!
//! The build script links either LevelDB 1.22 built from the sources the
//! `leveldb-sys` crate ships (release: `-O3 -DNDEBUG`, with Snappy 1.1.7;
//! the default where those sources exist) or a system library from
//! `LEVELDB_LIB_DIR`. [`KIND`] says which, [`BUILD`] describes it, and
//! [`DB_BENCH`] is LevelDB's own db_bench when the `db-bench` feature built
//! it. See docs/dependencies.md.

#![warn(missing_docs)]
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

/// What the build linked: `bundled` (built from source), `system` (a
/// library from `LEVELDB_LIB_DIR` or the usual directories) or `none`
/// (nothing: the functions below must not be called).
pub const KIND: &str = env!("STRATA_LEVELDB_KIND");

/// How the linked LevelDB was built, for the engine's version line
/// (`release build from leveldb-sys 2.0.9's sources, -O3 -DNDEBUG,
/// assertions disabled, Snappy 1.1.7`, or `system library from
/// LEVELDB_LIB_DIR`).
pub const BUILD: &str = env!("STRATA_LEVELDB_BUILD");

/// The system library's file (`KIND == "system"`).
pub const SYSTEM_LIB: Option<&str> = option_env!("STRATA_LEVELDB_LIB");

/// LevelDB's own `db_bench`, built from the same sources (without Snappy)
/// by the `db-bench` feature; `None` without it.
pub const DB_BENCH: Option<&str> = option_env!("STRATA_LEVELDB_DB_BENCH");

/// LevelDB's opaque `leveldb_t`.
#[repr(C)]
pub struct leveldb_t(u8);
/// LevelDB's opaque `leveldb_options_t`.
#[repr(C)]
pub struct leveldb_options_t(u8);
/// LevelDB's opaque `leveldb_readoptions_t`.
#[repr(C)]
pub struct leveldb_readoptions_t(u8);
/// LevelDB's opaque `leveldb_writeoptions_t`.
#[repr(C)]
pub struct leveldb_writeoptions_t(u8);
/// LevelDB's opaque `leveldb_writebatch_t`.
#[repr(C)]
pub struct leveldb_writebatch_t(u8);
/// LevelDB's opaque `leveldb_iterator_t`.
#[repr(C)]
pub struct leveldb_iterator_t(u8);
/// LevelDB's opaque `leveldb_cache_t`.
#[repr(C)]
pub struct leveldb_cache_t(u8);
/// LevelDB's opaque `leveldb_filterpolicy_t`.
#[repr(C)]
pub struct leveldb_filterpolicy_t(u8);

// The functions are `leveldb/c.h`'s, with its names and arguments.
#[allow(missing_docs)]
extern "C" {
    pub fn leveldb_open(
        o: *const leveldb_options_t,
        name: *const c_char,
        err: *mut *mut c_char,
    ) -> *mut leveldb_t;
    pub fn leveldb_close(db: *mut leveldb_t);
    pub fn leveldb_put(
        db: *mut leveldb_t,
        o: *const leveldb_writeoptions_t,
        k: *const c_char,
        klen: usize,
        v: *const c_char,
        vlen: usize,
        err: *mut *mut c_char,
    );
    pub fn leveldb_delete(
        db: *mut leveldb_t,
        o: *const leveldb_writeoptions_t,
        k: *const c_char,
        klen: usize,
        err: *mut *mut c_char,
    );
    pub fn leveldb_write(
        db: *mut leveldb_t,
        o: *const leveldb_writeoptions_t,
        b: *mut leveldb_writebatch_t,
        err: *mut *mut c_char,
    );
    pub fn leveldb_get(
        db: *mut leveldb_t,
        o: *const leveldb_readoptions_t,
        k: *const c_char,
        klen: usize,
        vlen: *mut usize,
        err: *mut *mut c_char,
    ) -> *mut c_char;
    pub fn leveldb_create_iterator(
        db: *mut leveldb_t,
        o: *const leveldb_readoptions_t,
    ) -> *mut leveldb_iterator_t;
    pub fn leveldb_property_value(db: *mut leveldb_t, name: *const c_char) -> *mut c_char;
    pub fn leveldb_approximate_sizes(
        db: *mut leveldb_t,
        n: c_int,
        start: *const *const c_char,
        start_len: *const usize,
        limit: *const *const c_char,
        limit_len: *const usize,
        sizes: *mut u64,
    );
    pub fn leveldb_compact_range(
        db: *mut leveldb_t,
        start: *const c_char,
        start_len: usize,
        limit: *const c_char,
        limit_len: usize,
    );
    pub fn leveldb_iter_destroy(it: *mut leveldb_iterator_t);
    pub fn leveldb_iter_valid(it: *const leveldb_iterator_t) -> u8;
    pub fn leveldb_iter_seek_to_first(it: *mut leveldb_iterator_t);
    pub fn leveldb_iter_seek_to_last(it: *mut leveldb_iterator_t);
    pub fn leveldb_iter_seek(it: *mut leveldb_iterator_t, k: *const c_char, klen: usize);
    pub fn leveldb_iter_next(it: *mut leveldb_iterator_t);
    pub fn leveldb_iter_prev(it: *mut leveldb_iterator_t);
    pub fn leveldb_iter_key(it: *const leveldb_iterator_t, klen: *mut usize) -> *const c_char;
    pub fn leveldb_iter_value(it: *const leveldb_iterator_t, vlen: *mut usize) -> *const c_char;
    pub fn leveldb_iter_get_error(it: *const leveldb_iterator_t, err: *mut *mut c_char);
    pub fn leveldb_writebatch_create() -> *mut leveldb_writebatch_t;
    pub fn leveldb_writebatch_destroy(b: *mut leveldb_writebatch_t);
    pub fn leveldb_writebatch_put(
        b: *mut leveldb_writebatch_t,
        k: *const c_char,
        klen: usize,
        v: *const c_char,
        vlen: usize,
    );
    pub fn leveldb_writebatch_delete(b: *mut leveldb_writebatch_t, k: *const c_char, klen: usize);
    pub fn leveldb_options_create() -> *mut leveldb_options_t;
    pub fn leveldb_options_destroy(o: *mut leveldb_options_t);
    pub fn leveldb_options_set_filter_policy(
        o: *mut leveldb_options_t,
        p: *mut leveldb_filterpolicy_t,
    );
    pub fn leveldb_options_set_create_if_missing(o: *mut leveldb_options_t, v: u8);
    pub fn leveldb_options_set_paranoid_checks(o: *mut leveldb_options_t, v: u8);
    pub fn leveldb_options_set_write_buffer_size(o: *mut leveldb_options_t, v: usize);
    pub fn leveldb_options_set_max_open_files(o: *mut leveldb_options_t, v: c_int);
    pub fn leveldb_options_set_cache(o: *mut leveldb_options_t, c: *mut leveldb_cache_t);
    pub fn leveldb_options_set_block_size(o: *mut leveldb_options_t, v: usize);
    pub fn leveldb_options_set_block_restart_interval(o: *mut leveldb_options_t, v: c_int);
    pub fn leveldb_options_set_max_file_size(o: *mut leveldb_options_t, v: usize);
    pub fn leveldb_options_set_compression(o: *mut leveldb_options_t, v: c_int);
    pub fn leveldb_filterpolicy_create_bloom(bits: c_int) -> *mut leveldb_filterpolicy_t;
    pub fn leveldb_filterpolicy_destroy(p: *mut leveldb_filterpolicy_t);
    pub fn leveldb_readoptions_create() -> *mut leveldb_readoptions_t;
    pub fn leveldb_readoptions_destroy(o: *mut leveldb_readoptions_t);
    pub fn leveldb_readoptions_set_verify_checksums(o: *mut leveldb_readoptions_t, v: u8);
    pub fn leveldb_writeoptions_create() -> *mut leveldb_writeoptions_t;
    pub fn leveldb_writeoptions_destroy(o: *mut leveldb_writeoptions_t);
    pub fn leveldb_writeoptions_set_sync(o: *mut leveldb_writeoptions_t, v: u8);
    pub fn leveldb_cache_create_lru(capacity: usize) -> *mut leveldb_cache_t;
    pub fn leveldb_cache_destroy(c: *mut leveldb_cache_t);
    pub fn leveldb_free(p: *mut c_void);
    pub fn leveldb_major_version() -> c_int;
    pub fn leveldb_minor_version() -> c_int;
}
