//! End-to-end tests of `strata stress` through the built binary.

use std::path::Path;
use std::process::{Command, Output};

use strata_testkit::output_text;

fn strata(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .arg("stress")
        .args(args)
        .output()
        .expect("run strata")
}

/// Parses "crash-test: N cycles, M operations, K keys verified, V violations".
fn crash_summary(stdout: &str) -> (u64, u64, u64, u64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("crash-test:") && l.contains(" cycles, "))
        .unwrap_or_else(|| panic!("no summary line in {stdout}"));
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(4)
        .map(|s| s.parse().unwrap())
        .collect();
    (nums[0], nums[1], nums[2], nums[3])
}

fn db_path(dir: &Path) -> String {
    dir.join("db").to_string_lossy().into_owned()
}

#[test]
fn normal_run_verifies_cleanly() {
    let d = strata_testkit::tempdir();
    let db = db_path(d.path());
    let o = strata(&[
        "--db", &db, "--threads", "4", "--ops", "20000", "--keys", "2000", "--seed", "7",
        "--options",
        "write_buffer_size=65536;max_bytes_for_level_base=262144;target_file_size_base=65536;level0_file_num_compaction_trigger=2",
        "--flush-one-in", "500", "--compact-one-in", "3000",
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("20000 operations"), "{}", output_text(&o));
    assert!(out.contains("0 violations"), "{}", output_text(&o));
    // A second run starts from the state the first one left.
    let o = strata(&[
        "--db", &db, "--ops", "2000", "--keys", "2000", "--seed", "8",
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("4000 keys verified on reopen"),
        "{}",
        output_text(&o)
    );
}

/// Seconds each CI crash test runs: `STRATA_STRESS_SECS` (CI sets 60; the
/// default keeps a plain `cargo test` short).
fn crash_secs() -> String {
    std::env::var("STRATA_STRESS_SECS").unwrap_or_else(|_| "8".to_string())
}

fn crash_test(name: &str, extra: &[&str]) {
    let d = strata_testkit::tempdir();
    let db = db_path(d.path());
    let secs = crash_secs();
    let mut args = vec![
        "--db",
        &db,
        "--crash-test",
        "--duration",
        &secs,
        "--keys",
        "1000",
        "--threads",
        "3",
        "--kill-min-ms",
        "300",
        "--kill-max-ms",
        "1200",
    ];
    args.extend(extra.iter().copied());
    assert_clean_crash_test(name, &strata(&args), 1000);
}

/// A crash test `name` that succeeded with at least 3 kill cycles, no
/// violation, and `keys_per_cycle` keys verified after each kill.
fn assert_clean_crash_test(name: &str, o: &Output, keys_per_cycle: u64) {
    assert!(o.status.success(), "{name}: {}", output_text(o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let (cycles, ops, keys, violations) = crash_summary(&stdout);
    println!("{name}: {}", stdout.lines().last().unwrap_or(""));
    assert_eq!(violations, 0, "{name}: {}", output_text(o));
    assert!(
        cycles >= 3,
        "{name}: only {cycles} cycles: {}",
        output_text(o)
    );
    assert!(
        ops > 0 && keys >= cycles * keys_per_cycle,
        "{name}: {}",
        output_text(o)
    );
}

const SMALL: &str =
    "write_buffer_size=65536;max_bytes_for_level_base=262144;target_file_size_base=65536;level0_file_num_compaction_trigger=2";

#[test]
fn crash_test_leveled_with_wal() {
    crash_test("leveled, WAL on", &["--sync", "0", "--options", SMALL]);
}

#[test]
fn crash_test_universal_blob_files_without_wal() {
    let opts = format!(
        "{SMALL};compaction_style=kCompactionStyleUniversal;max_subcompactions=2;enable_blob_files=true;min_blob_size=64;enable_blob_garbage_collection=true"
    );
    crash_test(
        "universal + subcompactions + blob files, WAL off",
        &[
            "--disable-wal",
            "1",
            "--flush-one-in",
            "300",
            "--options",
            &opts,
        ],
    );
}

/// One line of the whitebox report: "kill-at NAME: C cycles, K kills at
/// the point, R not reached, V violations" as (C, K, R, V).
#[cfg(feature = "sync-points")]
fn point_report(stdout: &str, name: &str) -> (u64, u64, u64, u64) {
    let prefix = format!("kill-at {name}: ");
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no report line for {name} in {stdout}"));
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (nums[0], nums[1], nums[2], nums[3])
}

/// `--kill-at random-point`: every sync point in turn until each one has
/// killed a child twice, on small buffers with blob files (so flushes,
/// compactions and blob files come quickly) and synced writes (so
/// `wal.sync` is reached); recovery's points are reached by the open after
/// a kill. Each point must have killed at least once and no reopen may
/// find a violation.
#[test]
#[cfg(feature = "sync-points")]
fn crash_test_kills_at_every_sync_point() {
    let d = strata_testkit::tempdir();
    let db = db_path(d.path());
    let opts = format!(
        "{SMALL};enable_blob_files=true;min_blob_size=64;enable_blob_garbage_collection=true"
    );
    let o = strata(&[
        "--db",
        &db,
        "--crash-test",
        "--duration",
        "50",
        "--kill-at",
        "random-point",
        "--kills-per-point",
        "2",
        "--keys",
        "500",
        "--threads",
        "3",
        "--sync",
        "1",
        "--flush-one-in",
        "200",
        "--compact-one-in",
        "1000",
        "--kill-min-ms",
        "300",
        "--kill-max-ms",
        "1000",
        "--options",
        &opts,
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    println!("{stdout}");
    let (cycles, _, keys, violations) = crash_summary(&stdout);
    assert_eq!(violations, 0, "{}", output_text(&o));
    assert!(cycles > 0 && keys > 0, "{}", output_text(&o));
    for name in strata::sync_point::SyncPoint::ALL.iter().map(|p| p.name()) {
        let (c, kills, not_reached, v) = point_report(&stdout, name);
        assert_eq!(v, 0, "{name}: {}", output_text(&o));
        assert!(kills >= 1, "{name}: never killed at: {}", output_text(&o));
        assert_eq!(c, kills + not_reached, "{name}: {}", output_text(&o));
    }
}

#[test]
fn verifier_catches_a_key_deleted_behind_its_back() {
    let d = strata_testkit::tempdir();
    let db = db_path(d.path());
    let o = strata(&[
        "--db",
        &db,
        "--ops",
        "3000",
        "--keys",
        "200",
        "--seed",
        "3",
        "--deletes",
        "0",
        "--batches",
        "0",
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    // Find a key the expected state says exists, and delete it with the
    // engine directly.
    let victim = {
        let h = strata::Db::open(&db, strata::Options::default()).unwrap();
        let (k, _) = h.iter().next().unwrap().unwrap();
        h.delete(&k).unwrap();
        h.flush().unwrap();
        String::from_utf8(k).unwrap()
    };
    let o = strata(&["--db", &db, "--ops", "10", "--keys", "200"]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("VIOLATION") && err.contains(&victim),
        "{}",
        output_text(&o)
    );
    assert!(err.contains("found absent"), "{}", output_text(&o));
    assert!(err.contains("kept for inspection"), "{}", output_text(&o));
}

#[test]
fn verifier_catches_an_edited_expected_state() {
    let d = strata_testkit::tempdir();
    let db = db_path(d.path());
    let o = strata(&["--db", &db, "--ops", "2000", "--keys", "100", "--seed", "4"]);
    assert!(o.status.success(), "{}", output_text(&o));
    // Claim a synced ack of a version the DB never saw, for key 5.
    let log = format!("{db}.expected/log");
    let mut rec = [0u8; 24];
    rec[0] = 1; // start put
    rec[1] = 1; // synced
    rec[4..8].copy_from_slice(&5u32.to_le_bytes());
    rec[8..16].copy_from_slice(&1_000_000u64.to_le_bytes());
    let mut ack = rec;
    ack[0] = 3;
    // A verified run leaves no log (the verification folded it in).
    let mut data = std::fs::read(&log).unwrap_or_default();
    data.extend_from_slice(&rec);
    data.extend_from_slice(&ack);
    std::fs::write(&log, data).unwrap();
    let o = strata(&["--db", &db, "--ops", "10", "--keys", "100"]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("key00000005: expected version 1000000"),
        "{}",
        output_text(&o)
    );
}

/// Runs `strata stress` with `args` and asserts a usage error (exit 2)
/// whose stderr holds every string of `wants`.
fn refused(args: &[&str], wants: &[&str]) {
    let o = strata(args);
    assert_eq!(o.status.code(), Some(2), "{}", output_text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for w in wants {
        assert!(err.contains(w), "{w}: {}", output_text(&o));
    }
}

#[test]
fn bad_flags_are_refused() {
    let nowhere = ["--db", "/nonexistent/x"];
    refused(
        &[&nowhere[..], &["--sync", "1", "--disable-wal", "1"]].concat(),
        &[],
    );
    let crash = [
        &nowhere[..],
        &["--crash-test", "--duration", "1", "--kill-at"],
    ]
    .concat();
    refused(
        &[&crash[..], &["wal.apend"]].concat(),
        &["no such sync point", "wal.append, wal.sync"],
    );
    if !cfg!(feature = "sync-points") {
        refused(
            &[&crash[..], &["wal.append"]].concat(),
            &["--kill-at needs a build with"],
        );
    }
    refused(
        &[&nowhere[..], &["--drop-cf-one-in", "10"]].concat(),
        &["--drop-cf-one-in needs --column-families"],
    );
    refused(
        &["--db", "/tmp/x", "--options", "no_such_option=1"],
        &["no_such_option"],
    );
    refused(
        &[&nowhere[..], &["--random-options"]].concat(),
        &["--random-options needs --crash-test"],
    );
    refused(
        &[
            &nowhere[..],
            &["--crash-test", "--duration", "1", "--random-options"],
            &["--options", "compression=kNoCompression"],
        ]
        .concat(),
        &["--random-options draws the options"],
    );
    refused(
        &[&nowhere[..], &["--family-options", "compression=kZSTD"]].concat(),
        &["--family-options given 1 times for 1 column families"],
    );
}

/// `--random-options` for `STRATA_STRESS_SECS` in all: half with kills at
/// random moments, half with kills at sync points (where the build has
/// them), a new option set every three kills. Every set the drawer makes
/// must open, run and verify; both halves, given the same seed, start
/// with the same set and print the line that reproduces the run.
#[test]
fn crash_test_with_random_options() {
    let secs: u64 = crash_secs().parse().unwrap();
    let half = (secs / 2).max(4).to_string();
    let mut first_sets = Vec::new();
    let whitebox: &[&str] = if cfg!(feature = "sync-points") {
        &["--kill-at", "random-point"]
    } else {
        &[]
    };
    for (name, extra) in [("blackbox", &[][..]), ("whitebox", whitebox)] {
        let d = strata_testkit::tempdir();
        let db = db_path(d.path());
        let mut args = vec![
            "--db",
            &db,
            "--crash-test",
            "--random-options",
            "--seed",
            "20260",
            "--kills-per-set",
            "3",
            "--duration",
            &half,
            "--kill-min-ms",
            "200",
            "--kill-max-ms",
            "900",
        ];
        args.extend_from_slice(extra);
        let o = strata(&args);
        assert!(o.status.success(), "{name}: {}", output_text(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        let (cycles, _, _, violations) = crash_summary(&stdout);
        assert_eq!(violations, 0, "{name}: {}", output_text(&o));
        assert!(cycles >= 3, "{name}: {cycles} cycles: {}", output_text(&o));
        assert!(
            stdout.contains("crash-test: reproduce with: strata stress --random-options --seed 20260 --kills-per-set 3"),
            "{name}: {}",
            output_text(&o)
        );
        let sets = stdout
            .lines()
            .find_map(|l| l.strip_prefix("random-options: "))
            .and_then(|l| l.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{name}: no option set count: {}", output_text(&o)));
        assert!(sets >= 1, "{name}: {}", output_text(&o));
        println!("{name}: {sets} option sets, {cycles} cycles");
        let first = stdout
            .lines()
            .find(|l| l.starts_with("crash-test: option set 1 (seed 20260): --options "))
            .unwrap_or_else(|| panic!("{name}: no first set: {}", output_text(&o)));
        first_sets.push(first.to_string());
    }
    assert_eq!(first_sets[0], first_sets[1]);
}

/// `--column-families 3`: writes to one, several or all families, drops
/// and re-creations of families while small write buffers keep flushes and
/// compactions running, a short crash test; then a family dropped behind
/// the tool's back is a violation.
#[test]
fn column_families_crash_test_and_listing() {
    let d = strata_testkit::tempdir();
    let db = db_path(d.path());
    let common = [
        "--db",
        &db,
        "--keys",
        "500",
        "--threads",
        "3",
        "--column-families",
        "3",
        "--drop-cf-one-in",
        "300",
        "--options",
        SMALL,
    ];
    let mut args = common.to_vec();
    args.extend(["--ops", "4000", "--seed", "11"]);
    let o = strata(&args);
    assert!(o.status.success(), "{}", output_text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let count = |what: &str| -> u64 {
        let before = out.split(what).next().unwrap_or("");
        before
            .rsplit(|c: char| !c.is_ascii_digit())
            .find(|s| !s.is_empty())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    };
    assert!(
        count(" writes to several families") > 0
            && count(" families dropped and created again") > 0,
        "{}",
        output_text(&o)
    );
    // 1500 keys (3 families of 500) verified at the start and at the end.
    assert!(
        out.contains("3000 keys verified on reopen"),
        "{}",
        output_text(&o)
    );

    let mut args = common.to_vec();
    args.extend([
        "--crash-test",
        "--duration",
        "4",
        "--kill-min-ms",
        "200",
        "--kill-max-ms",
        "800",
    ]);
    assert_clean_crash_test("column families", &strata(&args), 1500);

    // The DB has the three families; drop one behind the tool's back.
    {
        let opts = strata::Options::default();
        let mut names = strata::Db::list_column_families(&db, &opts).unwrap();
        names.sort();
        assert_eq!(names, ["cf1", "cf2", "default"]);
        let h = strata::Db::open_cf(
            &db,
            opts,
            [
                ("cf1", strata::Options::default()),
                ("cf2", strata::Options::default()),
            ],
        )
        .unwrap();
        h.drop_column_family(&h.column_family("cf2").unwrap())
            .unwrap();
    }
    let mut args = common.to_vec();
    args.extend(["--ops", "10"]);
    let o = strata(&args);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("VIOLATION: column family cf2 is missing"),
        "{}",
        output_text(&o)
    );
    // A run with another family count refuses the expected state.
    let o = strata(&["--db", &db, "--ops", "10", "--keys", "500"]);
    assert_eq!(o.status.code(), Some(2), "{}", output_text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--column-families 3"),
        "{}",
        output_text(&o)
    );
}

/// Merges under each built-in operator the verifier has a rule for:
/// `stringappend` in "default", `uint64add` in cf1, `put` in cf2, small
/// tables so that flushes and compactions combine operands, with crashes.
#[test]
fn crash_test_merges_under_every_operator() {
    let d = strata_testkit::tempdir();
    let db = db_path(d.path());
    let default = format!("{SMALL};merge_operator=stringappend");
    let secs = crash_secs();
    let o = strata(&[
        "--db",
        &db,
        "--crash-test",
        "--duration",
        &secs,
        "--keys",
        "300",
        "--threads",
        "3",
        "--kill-min-ms",
        "300",
        "--kill-max-ms",
        "1200",
        "--column-families",
        "3",
        "--merges",
        "40",
        "--puts",
        "10",
        "--batches",
        "10",
        "--flush-one-in",
        "400",
        "--compact-one-in",
        "1500",
        "--checkpoint-one-in",
        "3000",
        "--options",
        &default,
        "--family-options",
        "merge_operator=uint64add",
        "--family-options",
        "merge_operator=put",
    ]);
    assert_clean_crash_test("merges", &o, 900);
}

/// A merge operand written behind the tool's back (a repeated
/// `stringappend` operand, a stray `uint64add` increment) is a violation
/// naming the key.
#[test]
fn verifier_catches_a_stray_merge_operand() {
    for (operator, stray) in [("stringappend", None), ("uint64add", Some(1u64))] {
        let d = strata_testkit::tempdir();
        let db = db_path(d.path());
        let options = format!("merge_operator={operator}");
        let o = strata(&[
            "--db",
            &db,
            "--ops",
            "3000",
            "--keys",
            "100",
            "--seed",
            "5",
            "--merges",
            "60",
            "--deletes",
            "0",
            "--range-deletes",
            "0",
            "--options",
            &options,
        ]);
        assert!(o.status.success(), "{operator}: {}", output_text(&o));
        let victim = {
            let h = strata::Db::open(&db, options.parse().unwrap()).unwrap();
            let (k, operand) = h
                .iter()
                .map(Result::unwrap)
                .find_map(|(k, v)| match stray {
                    // The last operand of a chain, written again.
                    None => v
                        .iter()
                        .rposition(|&b| b == b',')
                        .map(|i| (k.clone(), v[i + 1..].to_vec())),
                    Some(n) => Some((k, n.to_le_bytes().to_vec())),
                })
                .expect("a key with a merge operand");
            h.merge(&k, &operand).unwrap();
            h.flush().unwrap();
            String::from_utf8(k).unwrap()
        };
        let o = strata(&[
            "--db",
            &db,
            "--ops",
            "10",
            "--keys",
            "100",
            "--options",
            &options,
        ]);
        assert_eq!(o.status.code(), Some(1), "{operator}: {}", output_text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("VIOLATION") && err.contains(&victim),
            "{operator}: {}",
            output_text(&o)
        );
    }
}
