//! The expected-state files kept beside the DB, in `<DB>.expected/`:
//!
//! * `baseline`: for every key, the version the DB was verified to hold at
//!   the last verification (`exists` false = absent) and the highest
//!   version ever used for it (never reused); with several column
//!   families, one such table per family. Replaced atomically, with the
//!   log it folds in emptied at the same moment (`FOLD_STEPS`).
//! * `log`: fixed 24-byte records appended by the writer since that
//!   baseline: `START_PUT`/`START_DEL` before a DB write is issued, `ACK`
//!   after it returned, `FLUSHED` after a successful flush,
//!   `DROP_START`/`DROP_ACK` around the drop and re-creation of a column
//!   family. A partial trailing record (the process was killed mid-append)
//!   is ignored.
//!
//! See `docs/stress.md` for the rules checked against them.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use parking_lot::Mutex;

use super::value::mix64;

const BASELINE_MAGIC: u64 = 0x5354_5253_4241_5345; // "STRSBASE"
/// The baseline of a run with several column families: the key count, the
/// family count, then one table of entries per family.
const BASELINE_FAMILIES_MAGIC: u64 = 0x5354_5253_4241_5346; // "STRSBASF"
const BASELINE_ENTRY: usize = 17;
/// Size of one log record.
pub const RECORD_SIZE: usize = 24;

/// The state of one key at the last verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyState {
    /// The version the key holds (0 with `exists == false`: never written).
    pub version: u64,
    /// Whether the key holds a value (false: absent or deleted).
    pub exists: bool,
    /// The highest version ever started for the key.
    pub max_used: u64,
}

/// What a log record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// A put of `(key, version)` is about to be issued.
    StartPut,
    /// A delete of `key` as `version` is about to be issued.
    StartDelete,
    /// The write of `(key, version)` was acknowledged by the DB.
    Ack,
    /// A `flush()` that began after the first `aux` records of the log
    /// succeeded: every write acknowledged in those records is durable.
    Flushed,
    /// The column family in `families` is about to be dropped and created
    /// again (empty).
    DropStart,
    /// The drop and re-creation of the family in `families` returned.
    DropAck,
}

impl RecordKind {
    fn code(self) -> u8 {
        match self {
            RecordKind::StartPut => 1,
            RecordKind::StartDelete => 2,
            RecordKind::Ack => 3,
            RecordKind::Flushed => 4,
            RecordKind::DropStart => 5,
            RecordKind::DropAck => 6,
        }
    }

    fn from_code(c: u8) -> Option<RecordKind> {
        Some(match c {
            1 => RecordKind::StartPut,
            2 => RecordKind::StartDelete,
            3 => RecordKind::Ack,
            4 => RecordKind::Flushed,
            5 => RecordKind::DropStart,
            6 => RecordKind::DropAck,
            _ => return None,
        })
    }
}

/// One log record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// What happened.
    pub kind: RecordKind,
    /// The write was issued with `sync=true` (start and ack records).
    pub synced: bool,
    /// Key index.
    pub key: u32,
    /// Version of the write.
    pub version: u64,
    /// Batch id for writes in a batch or to several column families (0:
    /// a single write to one family); for `Flushed`, the number of log
    /// records written before the flush began.
    pub aux: u64,
    /// The column families written (bit `i` = family `i`, "default" is 0),
    /// or dropped; 0 stands for "default" alone (a run with one family
    /// writes only 0, so its records are as they were before families).
    pub families: u16,
}

impl Record {
    /// The 24-byte encoding.
    pub fn encode(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[0] = self.kind.code();
        b[1] = u8::from(self.synced);
        b[2..4].copy_from_slice(&self.families.to_le_bytes());
        b[4..8].copy_from_slice(&self.key.to_le_bytes());
        b[8..16].copy_from_slice(&self.version.to_le_bytes());
        b[16..24].copy_from_slice(&self.aux.to_le_bytes());
        b
    }

    /// Decodes one record; `None` for an unknown kind.
    pub fn decode(b: &[u8; RECORD_SIZE]) -> Option<Record> {
        let kind = RecordKind::from_code(b[0])?;
        let mut k = [0u8; 4];
        k.copy_from_slice(&b[4..8]);
        let mut v = [0u8; 8];
        v.copy_from_slice(&b[8..16]);
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[16..24]);
        Some(Record {
            kind,
            synced: b[1] & 1 != 0,
            key: u32::from_le_bytes(k),
            version: u64::from_le_bytes(v),
            aux: u64::from_le_bytes(a),
            families: u16::from_le_bytes([b[2], b[3]]),
        })
    }

    /// The families of the record as a bit set (0 read as "default").
    pub fn family_mask(&self) -> u16 {
        if self.families == 0 {
            1
        } else {
            self.families
        }
    }

    /// The encoding of family bit set `mask` in [`Record::families`]:
    /// "default" alone is 0.
    pub fn encode_families(mask: u16) -> u16 {
        if mask == 1 {
            0
        } else {
            mask
        }
    }
}

/// The expected-state directory for the DB at `db`: `<db>.expected`.
pub fn dir_for(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(".expected");
    PathBuf::from(s)
}

fn baseline_path(dir: &Path) -> PathBuf {
    dir.join("baseline")
}

/// The log file path in `dir`.
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("log")
}

fn baseline_tmp_path(dir: &Path) -> PathBuf {
    dir.join("baseline.tmp")
}

/// Where the log a new baseline folds in waits until that baseline is in
/// place.
fn folded_log_path(dir: &Path) -> PathBuf {
    dir.join("log.folded")
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Renames `from` to `to`; a missing `from` is no error.
fn rename_if_exists(from: &Path, to: &Path) -> std::io::Result<()> {
    match std::fs::rename(from, to) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Removes `path`; a missing one is no error.
fn remove_if_exists(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The steps that replace the baseline with the complete, synced
/// `baseline.tmp` and empty the log, in order. A kill between two of them
/// leaves a state [`finish_interrupted_fold`] completes: the log is set
/// aside before the new baseline takes its place, so the new baseline is
/// never read with the log it already folded in (a drop record read again
/// would empty a family the baseline has filled since).
const FOLD_STEPS: [fn(&Path) -> std::io::Result<()>; 3] = [
    |dir| {
        rename_if_exists(&log_path(dir), &folded_log_path(dir))?;
        sync_dir(dir)
    },
    |dir| {
        std::fs::rename(baseline_tmp_path(dir), baseline_path(dir))?;
        sync_dir(dir)
    },
    |dir| {
        remove_if_exists(&folded_log_path(dir))?;
        sync_dir(dir)
    },
];

/// Completes a baseline replacement a kill interrupted (see
/// [`FOLD_STEPS`]): with the log set aside, the new baseline (synced
/// before the log moved) goes in place if it is not there yet, and the
/// folded log goes; without, an unfinished `baseline.tmp` goes.
///
/// # Errors
/// I/O errors.
fn finish_interrupted_fold(dir: &Path) -> Result<()> {
    if folded_log_path(dir).exists() {
        rename_if_exists(&baseline_tmp_path(dir), &baseline_path(dir))?;
        remove_if_exists(&folded_log_path(dir))?;
    } else {
        remove_if_exists(&baseline_tmp_path(dir))?;
    }
    Ok(())
}

fn checksum(data: &[u8]) -> u64 {
    data.chunks(8).fold(0u64, |acc, c| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        mix64(acc ^ u64::from_le_bytes(w))
    })
}

/// Reads the baseline of a run with `families` column families (one table
/// of key states per family), or `None` if there is none yet.
///
/// # Errors
/// I/O errors; a damaged or truncated file, or one for another key or
/// family count.
pub fn read_baseline(dir: &Path, keys: u32, families: usize) -> Result<Option<Vec<Vec<KeyState>>>> {
    if dir.exists() {
        finish_interrupted_fold(dir).context("finishing an interrupted baseline write")?;
    }
    let path = baseline_path(dir);
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let body_len = data.len().checked_sub(8).context("baseline too short")?;
    let (body, sum) = data.split_at(body_len);
    let mut s = [0u8; 8];
    s.copy_from_slice(sum);
    if checksum(body) != u64::from_le_bytes(s) {
        bail!("{}: checksum mismatch", path.display());
    }
    let mut word = [0u8; 8];
    word.copy_from_slice(body.get(0..8).context("baseline header")?);
    let mut n = [0u8; 4];
    n.copy_from_slice(body.get(8..12).context("baseline header")?);
    let (found_families, entries) = match u64::from_le_bytes(word) {
        BASELINE_MAGIC => (1, &body[12..]),
        BASELINE_FAMILIES_MAGIC => {
            let mut f = [0u8; 4];
            f.copy_from_slice(body.get(12..16).context("baseline header")?);
            (u32::from_le_bytes(f) as usize, &body[16..])
        }
        _ => bail!("{}: not a stress baseline", path.display()),
    };
    let n = u32::from_le_bytes(n);
    if n != keys {
        bail!(
            "{}: made for --keys {n}, this run has --keys {keys}",
            path.display()
        );
    }
    if found_families != families {
        bail!(
            "{}: made for --column-families {found_families}, this run has --column-families {families}",
            path.display()
        );
    }
    if entries.len() != families * n as usize * BASELINE_ENTRY {
        bail!("{}: truncated", path.display());
    }
    let mut out = Vec::with_capacity(families);
    for table in entries.chunks_exact(n as usize * BASELINE_ENTRY) {
        let mut states = Vec::with_capacity(n as usize);
        for e in table.chunks_exact(BASELINE_ENTRY) {
            let mut v = [0u8; 8];
            let mut m = [0u8; 8];
            v.copy_from_slice(&e[0..8]);
            m.copy_from_slice(&e[8..16]);
            states.push(KeyState {
                version: u64::from_le_bytes(v),
                max_used: u64::from_le_bytes(m),
                exists: e[16] != 0,
            });
        }
        out.push(states);
    }
    Ok(Some(out))
}

/// Atomically replaces the baseline with `tables` (the key states of each
/// column family, all of one length) and empties the log. With one family
/// the file is as it was before families.
///
/// # Errors
/// I/O errors.
pub fn write_baseline(dir: &Path, tables: &[Vec<KeyState>]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let keys = tables.first().map_or(0, Vec::len);
    let mut body = Vec::with_capacity(16 + tables.len() * keys * BASELINE_ENTRY + 8);
    if tables.len() == 1 {
        body.extend_from_slice(&BASELINE_MAGIC.to_le_bytes());
        body.extend_from_slice(&(keys as u32).to_le_bytes());
    } else {
        body.extend_from_slice(&BASELINE_FAMILIES_MAGIC.to_le_bytes());
        body.extend_from_slice(&(keys as u32).to_le_bytes());
        body.extend_from_slice(&(tables.len() as u32).to_le_bytes());
    }
    for s in tables.iter().flatten() {
        body.extend_from_slice(&s.version.to_le_bytes());
        body.extend_from_slice(&s.max_used.to_le_bytes());
        body.push(u8::from(s.exists));
    }
    let sum = checksum(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    {
        let mut f = File::create(baseline_tmp_path(dir))?;
        f.write_all(&body)?;
        f.sync_all()?;
    }
    for step in FOLD_STEPS {
        step(dir)?;
    }
    Ok(())
}

/// Reads every complete record of the log (none if it does not exist).
///
/// # Errors
/// I/O errors; an unknown record kind.
pub fn read_log(dir: &Path) -> Result<Vec<Record>> {
    let path = log_path(dir);
    let mut data = Vec::new();
    match File::open(&path) {
        Ok(mut f) => {
            f.read_to_end(&mut data)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    }
    let mut out = Vec::with_capacity(data.len() / RECORD_SIZE);
    for (i, c) in data.chunks_exact(RECORD_SIZE).enumerate() {
        let mut b = [0u8; RECORD_SIZE];
        b.copy_from_slice(c);
        match Record::decode(&b) {
            Some(r) => out.push(r),
            None => bail!(
                "{}: bad record at offset {}",
                path.display(),
                i * RECORD_SIZE
            ),
        }
    }
    Ok(out)
}

/// The appending side of the log, shared by the worker threads.
pub struct LogWriter {
    inner: Mutex<(File, u64)>,
}

impl LogWriter {
    /// Opens the log of `dir` for appending.
    ///
    /// # Errors
    /// I/O errors.
    pub fn open(dir: &Path) -> Result<LogWriter> {
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log_path(dir))?;
        let len = f.metadata()?.len() / RECORD_SIZE as u64;
        Ok(LogWriter {
            inner: Mutex::new((f, len)),
        })
    }

    /// Appends records with one `write` (reaching the OS before this
    /// returns, so a killed process cannot lose them); fsyncs the log too
    /// when `sync`. Returns the number of records in the log afterwards.
    ///
    /// # Errors
    /// I/O errors.
    pub fn append(&self, recs: &[Record], sync: bool) -> Result<u64> {
        let mut buf = Vec::with_capacity(recs.len() * RECORD_SIZE);
        for r in recs {
            buf.extend_from_slice(&r.encode());
        }
        let mut g = self.inner.lock();
        g.0.write_all(&buf)?;
        g.1 += recs.len() as u64;
        if sync {
            g.0.sync_data()?;
        }
        Ok(g.1)
    }

    /// The number of records written so far.
    pub fn len(&self) -> u64 {
        self.inner.lock().1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_and_log_round_trip() {
        let d = tempfile::tempdir().unwrap();
        let states = vec![
            KeyState {
                version: 3,
                exists: true,
                max_used: 5,
            },
            KeyState::default(),
        ];
        write_baseline(d.path(), std::slice::from_ref(&states)).unwrap();
        assert_eq!(
            read_baseline(d.path(), 2, 1).unwrap().unwrap(),
            vec![states.clone()]
        );
        assert!(read_baseline(d.path(), 3, 1).is_err());
        let e = read_baseline(d.path(), 2, 3).unwrap_err();
        assert!(e.to_string().contains("--column-families 1"), "{e}");
        // One table per family.
        let tables = vec![states.clone(), vec![KeyState::default(); 2], states];
        write_baseline(d.path(), &tables).unwrap();
        assert_eq!(read_baseline(d.path(), 2, 3).unwrap().unwrap(), tables);
        assert!(read_baseline(d.path(), 2, 1).is_err());
        let w = LogWriter::open(d.path()).unwrap();
        let r = Record {
            kind: RecordKind::StartPut,
            synced: true,
            key: 1,
            version: 6,
            aux: 9,
            families: 0b101,
        };
        assert_eq!(w.append(&[r, r], false).unwrap(), 2);
        // A torn trailing record is ignored.
        let mut f = OpenOptions::new()
            .append(true)
            .open(log_path(d.path()))
            .unwrap();
        f.write_all(&[1, 0, 0]).unwrap();
        assert_eq!(read_log(d.path()).unwrap(), vec![r, r]);
    }

    /// Regression: a kill after the new baseline's rename and before the
    /// log was emptied left the new baseline with the log it had folded
    /// in; the log's drop records, read again, emptied families the
    /// baseline had filled since, and the next verification reported the
    /// writes found there as violations (a whitebox child killed while it
    /// verified its own open, under options that made that verification
    /// slow). A kill after any step now reads as the old baseline with
    /// its log or the new one with none.
    #[test]
    fn a_kill_while_the_baseline_is_replaced_never_pairs_it_with_the_folded_log() {
        let old = vec![vec![KeyState::default(); 2]];
        let new = vec![vec![
            KeyState {
                version: 4,
                exists: true,
                max_used: 4,
            };
            2
        ]];
        let r = Record {
            kind: RecordKind::DropAck,
            synced: false,
            key: u32::MAX,
            version: 0,
            aux: 0,
            families: 0b10,
        };
        for done in 0..=FOLD_STEPS.len() {
            let d = tempfile::tempdir().unwrap();
            write_baseline(d.path(), &old).unwrap();
            LogWriter::open(d.path())
                .unwrap()
                .append(&[r], false)
                .unwrap();
            // write_baseline(new), killed after `done` of its steps.
            std::fs::write(baseline_tmp_path(d.path()), {
                let e = tempfile::tempdir().unwrap();
                write_baseline(e.path(), &new).unwrap();
                std::fs::read(baseline_path(e.path())).unwrap()
            })
            .unwrap();
            for step in &FOLD_STEPS[..done] {
                step(d.path()).unwrap();
            }
            let base = read_baseline(d.path(), 2, 1).unwrap().unwrap();
            let log = read_log(d.path()).unwrap();
            if base == new {
                assert!(
                    log.is_empty(),
                    "after {done} steps: the folded log is read again"
                );
            } else {
                assert_eq!((base, log), (old.clone(), vec![r]), "after {done} steps");
            }
            assert!(!baseline_tmp_path(d.path()).exists());
            assert!(!folded_log_path(d.path()).exists());
        }
    }

    #[test]
    fn damaged_baseline_is_an_error_not_a_panic() {
        let d = tempfile::tempdir().unwrap();
        write_baseline(d.path(), &[vec![KeyState::default(); 4]]).unwrap();
        let p = baseline_path(d.path());
        let mut data = std::fs::read(&p).unwrap();
        data[13] ^= 1;
        std::fs::write(&p, &data).unwrap();
        assert!(read_baseline(d.path(), 4, 1).is_err());
        std::fs::write(&p, &data[..5]).unwrap();
        assert!(read_baseline(d.path(), 4, 1).is_err());
    }
}
