//! Command-line interface of `strata lab` (clap derive).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::run::options::RunOptions;

/// `strata lab`: run tuning studies and report on them.
#[derive(Debug, Parser)]
#[command(
    name = "strata lab",
    about = "Run tuning studies end to end and report on them"
)]
pub(crate) struct Cli {
    /// Subcommand.
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// The commands that run each engine's benchmark (`run`, `plan`,
/// `run-one` and `tune`).
#[derive(Debug, clap::Args, Clone, Default)]
pub(crate) struct BenchCommands {
    /// Command running Strata's benchmark (default: this executable + `bench`).
    #[arg(long)]
    pub strata_bench: Option<String>,
    /// External RocksDB db_bench (default: `strata bench --engine=rocksdb` if it works).
    #[arg(long)]
    pub rocksdb_bench: Option<String>,
    /// External LevelDB db_bench: a command, or `bundled` for LevelDB's own
    /// db_bench built from source with this binary (cargo feature
    /// `leveldb-db-bench`) (default: `strata bench --engine=leveldb` if it works).
    #[arg(long, value_parser = crate::run::leveldb::parse_leveldb_bench)]
    pub leveldb_bench: Option<String>,
}

impl BenchCommands {
    /// The run options with these commands, writing under `out`.
    fn run_options(&self, out: &std::path::Path, resume: bool) -> RunOptions {
        RunOptions {
            out: out.to_path_buf(),
            resume,
            strata_bench: self.strata_bench.clone(),
            rocksdb_bench: self.rocksdb_bench.clone(),
            leveldb_bench: self.leveldb_bench.clone(),
            max_jobs: None,
            order_seed: None,
            settle: false,
            allow_missing_engines: true,
            adaptive: None,
        }
    }
}

/// Options shared by run, plan and run-one.
#[derive(Debug, clap::Args, Clone)]
pub(crate) struct Common {
    /// Study file, or a name under `studies/` (e.g. `blob`).
    pub study: String,
    /// Scale: `quick` or `full` (or any scale the study defines).
    #[arg(long, default_value = "quick")]
    pub scale: String,
    /// Engines, comma separated (default: the study's).
    #[arg(long, value_delimiter = ',')]
    pub engines: Option<Vec<String>>,
    /// Repeats per cell (default: the scale's or the study's).
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Output root directory.
    #[arg(long, default_value = "lab-results")]
    pub out: PathBuf,
    /// `--set`, `--timeout` and the bench commands.
    #[command(flatten)]
    pub runs: SearchRuns,
    /// Run only the cells matching `AXIS=LABEL[,AXIS=LABEL...]` (repeatable:
    /// a cell matching any filter runs), e.g. `--only compaction=universal,wal=perf`.
    #[arg(long, value_name = "AXIS=LABEL,...")]
    pub only: Vec<String>,
    /// Use a `db_bench` found on PATH for every engine (testing without `strata bench`).
    #[arg(long)]
    pub db_bench_on_path: bool,
}

/// The options of a study's or a search's runs (`run`, `plan`, `tune`,
/// `capacity`).
#[derive(Debug, clap::Args, Clone)]
pub(crate) struct SearchRuns {
    /// Override a fixed flag of the workload: `--set num=100000` (repeatable).
    #[arg(long = "set", value_name = "FLAG=VALUE", allow_hyphen_values = true)]
    pub set: Vec<String>,
    /// Kill a benchmark step after this many seconds (the run counts as failed).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// The bench commands.
    #[command(flatten)]
    pub benches: BenchCommands,
}

/// The arguments of `lab capacity`.
#[derive(Debug, clap::Args, Clone)]
pub(crate) struct CapacityArgs {
    /// Capacity file, or a name under `studies/capacity/` (e.g. `ycsb_a_1kb`).
    pub spec: String,
    /// Scale: `quick` or `full` (or any scale the file defines).
    #[arg(long, default_value = "quick")]
    pub scale: String,
    /// Engines, comma separated (default: the file's).
    #[arg(long, value_delimiter = ',')]
    pub engines: Option<Vec<String>>,
    /// Configurations, comma separated (default: all of the file's); a
    /// later `--resume` with others adds them to the same search.
    #[arg(long, value_delimiter = ',')]
    pub configs: Option<Vec<String>>,
    /// Output root directory (the search goes to `OUT/capacity-NAME-SCALE`).
    #[arg(long, default_value = "lab-results")]
    pub out: PathBuf,
    /// The runs' flags, time limit and bench commands.
    #[command(flatten)]
    pub runs: SearchRuns,
    /// Continue the search logged in the output directory.
    #[arg(long)]
    pub resume: bool,
    /// Do not settle the host before each run (by default: sync, and drop
    /// the page cache when running as root), so a run may pay for the
    /// previous run's writeback. Stated in the report.
    #[arg(long)]
    pub no_settle: bool,
}

/// The arguments of `lab tune`.
#[derive(Debug, clap::Args, Clone)]
pub(crate) struct TuneArgs {
    /// Tuning file, or a name under `tunes/` (e.g. `fill_read`).
    pub spec: String,
    /// Scale: `quick` or `full` (or any scale the file defines).
    #[arg(long, default_value = "quick")]
    pub scale: String,
    /// Engines, comma separated, each tuned on its own (default: the file's).
    #[arg(long, value_delimiter = ',')]
    pub engines: Option<Vec<String>>,
    /// Output root directory (the tuning goes to `OUT/tune-NAME-SCALE`).
    #[arg(long, default_value = "lab-results")]
    pub out: PathBuf,
    /// Search runs per engine (default: the file's `budget`).
    #[arg(long)]
    pub budget: Option<usize>,
    /// End the search at the first run after this many minutes (then confirm).
    #[arg(long)]
    pub budget_minutes: Option<f64>,
    /// Configurations the model proposes per round.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// Seed of the search (default: the file's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The runs' flags, time limit and bench commands.
    #[command(flatten)]
    pub runs: SearchRuns,
    /// Continue the tuning logged in the output directory.
    #[arg(long)]
    pub resume: bool,
    /// Run only this logged trial (the lines `lab plan` prints for a tuning).
    #[arg(long)]
    pub run_index: Option<usize>,
    /// Run a reference grid instead of searching: the baseline and every
    /// configuration with each numeric option at LEVELS values, once each
    /// (into `OUT/tune-NAME-SCALE-grid`).
    #[arg(long, value_name = "LEVELS")]
    pub grid: Option<usize>,
    /// Compare the winner with a reference grid's directory in the report.
    #[arg(long, value_name = "GRID_DIR")]
    pub reference: Option<PathBuf>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Cmd {
    /// Run a study and write its report.
    Run {
        /// Shared options.
        #[command(flatten)]
        common: Common,
        /// Skip runs already done in the output directory.
        #[arg(long)]
        resume: bool,
        /// Stop after this many runs (for testing interruption).
        #[arg(long, hide = true)]
        max_runs: Option<usize>,
        /// Seed of the job order within each repeat (default: from the
        /// clock; recorded in meta.json and the report's setup).
        #[arg(long)]
        order_seed: Option<u64>,
        /// Do not settle the host between jobs (by default: sync, and drop
        /// the page cache when running as root). Stated in the report.
        #[arg(long)]
        no_settle: bool,
        /// Run without an engine named in --engines that cannot run (its
        /// bench is missing) instead of failing; the report says so. (Of the
        /// study's default engines, one that cannot run is always left out
        /// with a note.)
        #[arg(long)]
        allow_missing_engines: bool,
        /// After the study's repeats, give the cells of claims still
        /// undecided more repeats, round by round (doubling up to
        /// --max-repeats), judging each claim at 5% over the planned looks.
        #[arg(long)]
        until_decided: bool,
        /// With --until-decided: the most repeats any cell gets.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        max_repeats: Option<u32>,
        /// With --until-decided: no new round starts after this many minutes
        /// of the run.
        #[arg(long, value_name = "MIN")]
        budget: Option<f64>,
    },
    /// Write (or rewrite) the report of a results directory.
    Report {
        /// Study result directory (or a directory of them).
        dir: PathBuf,
    },
    /// Write `DIR/index.md`: each study directory in DIR with its scale,
    /// repeats, engines, date, commit and verdict summary per engine.
    Index {
        /// A directory of study result directories.
        dir: PathBuf,
    },
    /// Compare two result directories of the same study.
    Compare {
        /// Baseline.
        dir_a: PathBuf,
        /// New.
        dir_b: PathBuf,
        /// Significance level.
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        /// Minimum relative change to flag (0.05 = 5%).
        #[arg(long, default_value_t = 0.05)]
        min_delta: f64,
    },
    /// Print the study's runs as one shell command per line. For a tuning
    /// file: log the next round of runs and print their commands (run them,
    /// gather their run directories into the tuning directory, and plan
    /// again; nothing printed: the tuning is complete).
    Plan {
        /// Shared options.
        #[command(flatten)]
        common: Common,
        /// Command that runs `strata lab` on the workers (default: this executable + `lab`).
        #[arg(long)]
        lab_cmd: Option<String>,
        /// For a tuning file: configurations the model proposes per round.
        #[arg(long, default_value_t = 1)]
        batch: usize,
    },
    /// Search the options of a workload for the best configuration (a
    /// tuning file, see docs/lab.md) and write its report.
    Tune(TuneArgs),
    /// Search the highest rate each engine and configuration sustains
    /// within a latency, stall and space objective (a capacity file, see
    /// docs/lab.md) and write its report.
    Capacity(CapacityArgs),
    /// Run one job of a plan by index (what `plan` lines call).
    RunOne {
        /// Shared options.
        #[command(flatten)]
        common: Common,
        /// Job index.
        #[arg(long)]
        index: usize,
    },
    /// Merge result directories (from plan jobs on many machines) and report.
    Collect {
        /// Result directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Merged output directory.
        #[arg(long, default_value = "lab-results")]
        out: PathBuf,
        /// Keep runs that collide (separate runs of the same study) as
        /// extra repeats instead of refusing them.
        #[arg(long)]
        pool: bool,
    },
    /// Parse a saved db_bench / `strata bench` stdout with strata-bench's reader and
    /// print what it found as JSON: `fields` (the output's shape, see
    /// `strata_bench::dbbench_text::field_set`), `metrics` (the derived metrics a result row gets)
    /// and ticker / histogram counts.
    Parse {
        /// Saved stdout of the benchmark.
        stdout: PathBuf,
        /// Saved stderr (version lines may be there).
        #[arg(long)]
        stderr: Option<PathBuf>,
    },
    /// Compare the STATISTICS dumps of two runs of the same benchmark
    /// command (e.g. `--engine=strata` and `--engine=rocksdb`): what one
    /// counts and the other does not, and what both count but more than
    /// `--factor` apart.
    Parity {
        /// Saved stdout of the first run.
        a: PathBuf,
        /// Saved stdout of the second run.
        b: PathBuf,
        /// Counts further apart than this are listed.
        #[arg(long, default_value_t = 2.0)]
        factor: f64,
    },
    /// Validate a study file and print its cells and disk need (or a
    /// capacity file: its searches, run length and disk need).
    Check {
        /// Study or capacity file, or name.
        study: String,
        /// Scale.
        #[arg(long, default_value = "quick")]
        scale: String,
    },
    /// Print the metric registry as a Markdown table: each metric the lab
    /// lists by name, its unit, which direction is better, where it comes
    /// from and where it is shown.
    Metrics,
    /// Measure the verdict model's error rates on synthetic repeats and
    /// print them as a Markdown table (the table in docs/lab.md).
    Simulate {
        /// Trials per configuration.
        #[arg(long, default_value_t = 2000)]
        trials: usize,
        /// Repeats per cell, comma-separated.
        #[arg(long, default_value = "2,3,5,10", value_delimiter = ',')]
        repeats: Vec<usize>,
        /// Noise levels (coefficients of variation), comma-separated.
        #[arg(long, default_value = "0.02,0.1,0.3", value_delimiter = ',')]
        cv: Vec<f64>,
        /// Minimum effect size.
        #[arg(long, default_value_t = crate::judge::verdict::DEFAULT_MIN_EFFECT)]
        min_effect: f64,
    },
}

fn options(c: &Common) -> anyhow::Result<RunOptions> {
    let mut o = c.runs.benches.run_options(&c.out, false);
    if c.db_bench_on_path {
        let p = crate::find_on_path("db_bench")
            .ok_or_else(|| anyhow::anyhow!("--db-bench-on-path: no db_bench on PATH"))?;
        let p = p.display().to_string();
        o.strata_bench.get_or_insert(p.clone());
        o.rocksdb_bench.get_or_insert(p);
    }
    Ok(o)
}

/// Refuses an `--engines` list that names an engine the lab does not know.
fn check_engines(engines: Option<&[String]>) -> anyhow::Result<()> {
    let known = crate::spec::validate::ENGINES;
    if let Some(bad) = engines
        .unwrap_or_default()
        .iter()
        .find(|e| !known.contains(&e.as_str()))
    {
        anyhow::bail!(
            "--engines: unknown engine `{bad}` (known: {})",
            known.join(", ")
        );
    }
    Ok(())
}

fn plan_of(c: &Common) -> anyhow::Result<(crate::spec::model::Plan, PathBuf)> {
    let path = crate::spec::resolve_study_path(&c.study);
    let spec = crate::spec::load(&path)?;
    check_engines(c.engines.as_deref())?;
    let set = set_pairs(&c.runs.set)?;
    let mut plan =
        crate::spec::model::expand_with(&spec, &c.scale, c.repeats, c.engines.clone(), &set)?;
    plan.timeout = c.runs.timeout.map(std::time::Duration::from_secs);
    plan.select_cells(&c.only)?;
    Ok((plan, path))
}

/// What `strata lab parse` prints for a saved stdout (and stderr).
pub(crate) fn parse_json(
    stdout: &std::path::Path,
    stderr: Option<&std::path::Path>,
) -> anyhow::Result<serde_json::Value> {
    let read = |p: &std::path::Path| {
        std::fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
    };
    let out = read(stdout)?;
    let err = match stderr {
        Some(p) => read(p)?,
        None => String::new(),
    };
    let o = strata_bench::dbbench_text::parse_output(&out, &err);
    let metrics: std::collections::BTreeMap<String, f64> =
        crate::data::derive::metrics(&o, &crate::data::derive::Accounting::default())
            .into_iter()
            .filter(|(k, v)| {
                !k.starts_with("rocksdb.")
                    && !matches!(
                        k.as_str(),
                        "wall_sec" | "user_sec" | "sys_sec" | "max_rss_mb"
                    )
                    && v.is_finite()
            })
            .collect();
    Ok(serde_json::json!({
        "engine_version": o.engine_version,
        "benchmarks": o.benches.iter().map(|b| b.name.clone()).collect::<Vec<_>>(),
        "fields": strata_bench::dbbench_text::field_set(&o),
        "metrics": metrics,
        "tickers": o.tickers.len(),
        "stat_histograms": o.stat_histograms.len(),
    }))
}

/// The tuning file `arg` names, if it is one (a path or a name under `tunes/`).
fn tune_file(arg: &str) -> Option<PathBuf> {
    let p = crate::tune::spec::resolve_path(arg);
    let text = std::fs::read_to_string(&p).ok()?;
    crate::tune::spec::is_tune_text(&text).then_some(p)
}

/// `--set FLAG=VALUE` pairs; FLAG must be a db_bench flag (one of
/// `strata bench`'s, which are db_bench's and Strata's own), so that a typo
/// is refused before any run instead of failing every run.
fn set_pairs(set: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    set.iter()
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| anyhow::anyhow!("--set {kv}: expected FLAG=VALUE"))?;
            let k = k.trim_start_matches('-');
            if strata_bench::flags::table::lookup(k).is_none() {
                anyhow::bail!("--set {kv}: no db_bench flag named `{k}`");
            }
            Ok((k.to_string(), v.to_string()))
        })
        .collect()
}

/// `lab plan` of a tuning file: the next round's command lines.
fn plan_tuning(
    common: &Common,
    path: &std::path::Path,
    batch: usize,
    lab: &[String],
) -> anyhow::Result<i32> {
    if common.repeats.is_some() || !common.only.is_empty() || common.db_bench_on_path {
        anyhow::bail!(
            "{}: a tuning file takes no --repeats, --only or --db-bench-on-path",
            path.display()
        );
    }
    let tune = crate::tune::spec::load(path)?;
    let o = crate::tune::driver::TuneOptions {
        scale: common.scale.clone(),
        engines: common.engines.clone(),
        budget: None,
        budget_minutes: None,
        batch,
        seed: None,
        set: set_pairs(&common.runs.set)?,
        timeout: common.runs.timeout,
        single: false,
        grid: None,
        reference: None,
    };
    let ro = options(common)?;
    let lines = crate::tune::driver::plan_round(&tune, path, &o, &ro, lab)?;
    if lines.is_empty() {
        eprintln!(
            "the tuning is complete: `strata lab report {}` writes its report",
            crate::tune::driver::tune_dir(&common.out, &tune, &o).display()
        );
    }
    for l in lines {
        println!("{l}");
    }
    Ok(0)
}

/// `lab tune`.
fn tune(a: TuneArgs) -> anyhow::Result<i32> {
    let path = crate::tune::spec::resolve_path(&a.spec);
    let tune = crate::tune::spec::load(&path)?;
    check_engines(a.engines.as_deref())?;
    if a.batch == 0 {
        anyhow::bail!("--batch must be at least 1");
    }
    if a.budget.is_some_and(|b| b < 3) {
        anyhow::bail!("--budget must be at least 3 runs");
    }
    if a.budget_minutes.is_some_and(|m| m.is_nan() || m <= 0.0) {
        anyhow::bail!("--budget-minutes must be positive");
    }
    let o = crate::tune::driver::TuneOptions {
        scale: a.scale.clone(),
        engines: a.engines.clone(),
        budget: a.budget,
        budget_minutes: a.budget_minutes,
        batch: a.batch,
        seed: a.seed,
        set: set_pairs(&a.runs.set)?,
        timeout: a.runs.timeout,
        single: a.run_index.is_some(),
        grid: a.grid,
        reference: a.reference.clone(),
    };
    if a.grid.is_some_and(|l| l < 2) {
        anyhow::bail!("--grid takes 2 or more levels");
    }
    if let Some(r) = &a.reference {
        if !r.join("tune.json").exists() {
            anyhow::bail!(
                "--reference {}: not a tuning directory (no tune.json)",
                r.display()
            );
        }
    }
    let ro = a.runs.benches.run_options(&a.out, a.resume);
    if let Some(i) = a.run_index {
        crate::tune::driver::run_index(&tune, &o, &ro, i)?;
        return Ok(0);
    }
    let dir = crate::tune::driver::tune_dir(&a.out, &crate::tune::driver::effective(&tune, &o), &o);
    refuse_logged(
        &dir.join(crate::tune::trials::TRIALS_FILE),
        a.resume,
        "a tuning",
    )?;
    let dir = crate::tune::driver::run(&tune, &o, &ro)?;
    let (r, summaries) = crate::tune::report::write(&dir)?;
    print_report(summaries.iter().map(|s| s.line()), &r)
}

/// Refuses to start a search over the log `log` of another (`what`)
/// unless it is resumed.
fn refuse_logged(log: &std::path::Path, resume: bool, what: &str) -> anyhow::Result<()> {
    if !resume && log.exists() {
        anyhow::bail!(
            "{}: {what} is logged there already; --resume continues it (or choose another --out)",
            log.parent().unwrap_or(log).display()
        );
    }
    Ok(())
}

/// Prints a search's summary lines and its report's path; exit code 0.
fn print_report(
    lines: impl Iterator<Item = String>,
    report: &std::path::Path,
) -> anyhow::Result<i32> {
    for l in lines {
        println!("{l}");
    }
    println!("report: {}", report.display());
    Ok(0)
}

/// `lab capacity`.
fn capacity(a: CapacityArgs) -> anyhow::Result<i32> {
    let cap = crate::capacity::spec::load(&a.spec)?;
    check_engines(a.engines.as_deref())?;
    let o = crate::capacity::driver::CapacityOptions {
        scale: a.scale.clone(),
        engines: a.engines.clone(),
        configs: a.configs.clone(),
        set: set_pairs(&a.runs.set)?,
        timeout: a.runs.timeout,
    };
    let ro = RunOptions {
        settle: !a.no_settle,
        ..a.runs.benches.run_options(&a.out, a.resume)
    };
    let dir = crate::capacity::driver::capacity_dir(&a.out, &cap, &a.scale);
    refuse_logged(
        &dir.join(crate::capacity::trials::TRIALS_FILE),
        a.resume,
        "a capacity search",
    )?;
    let dir = crate::capacity::driver::run(&cap, &o, &ro)?;
    let (r, summaries) = crate::capacity::report::write(&dir)?;
    print_report(summaries.iter().map(|s| s.line()), &r)
}

/// Executes a parsed command line; returns the process exit code.
pub(crate) fn execute(cli: Cli) -> anyhow::Result<i32> {
    match cli.cmd {
        Cmd::Run {
            common,
            resume,
            max_runs,
            order_seed,
            no_settle,
            allow_missing_engines,
            until_decided,
            max_repeats,
            budget,
        } => {
            if !until_decided && (max_repeats.is_some() || budget.is_some()) {
                anyhow::bail!("--max-repeats and --budget go with --until-decided");
            }
            if budget.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
                anyhow::bail!("--budget must be a positive number of minutes");
            }
            let (plan, _) = plan_of(&common)?;
            let mut o = options(&common)?;
            o.resume = resume;
            o.max_jobs = max_runs;
            o.order_seed = order_seed;
            o.settle = !no_settle;
            // Engines named with --engines must run; of the study's own
            // list, one that cannot is left out with a note.
            o.allow_missing_engines = allow_missing_engines || common.engines.is_none();
            if until_decided {
                o.adaptive = Some(crate::run::adaptive::Adaptive {
                    max_repeats: max_repeats.unwrap_or(20),
                    budget: budget.map(|m| std::time::Duration::from_secs_f64(m * 60.0)),
                });
            }
            let sdir = crate::run::runner::run_study(&plan, &o)?;
            if max_runs.is_some() && !sdir.join("results.jsonl").exists() {
                println!("stopped early; resume with --resume ({})", sdir.display());
                return Ok(0);
            }
            for r in crate::report::report(&sdir)? {
                println!("report: {}", r.display());
                println!("summary: {}", r.with_extension("md").display());
            }
            Ok(0)
        }
        Cmd::Index { dir } => {
            println!(
                "index: {}",
                crate::report::index::write_index(&dir)?.display()
            );
            Ok(0)
        }
        Cmd::Report { dir } => {
            if dir.join("capacity.json").exists() {
                let (r, _) = crate::capacity::report::write(&dir)?;
                println!("report: {}", r.display());
                return Ok(0);
            }
            if dir.join("tune.json").exists() {
                let (r, _) = crate::tune::report::write(&dir)?;
                println!("report: {}", r.display());
                return Ok(0);
            }
            for r in crate::report::report(&dir)? {
                println!("report: {}", r.display());
            }
            Ok(0)
        }
        Cmd::Compare {
            dir_a,
            dir_b,
            alpha,
            min_delta,
        } => {
            let mut a = crate::data::results::load_dir(&dir_a)?;
            let mut b = crate::data::results::load_dir(&dir_b)?;
            crate::judge::compare::check_same_study(&a, &b, &dir_a, &dir_b)?;
            crate::judge::guards::apply(&mut a);
            crate::judge::guards::apply(&mut b);
            let d = crate::judge::compare::compare(&a, &b, alpha, min_delta);
            print!("{}", crate::judge::compare::render(&d, &dir_a, &dir_b));
            Ok(0)
        }
        Cmd::Plan {
            common,
            lab_cmd,
            batch,
        } => {
            let lab = match lab_cmd {
                Some(c) => crate::run::engines::words(&c),
                None => {
                    let mut v = crate::default_bench_command();
                    if let Some(last) = v.last_mut() {
                        *last = "lab".into();
                    }
                    v
                }
            };
            if let Some(path) = tune_file(&common.study) {
                return plan_tuning(&common, &path, batch, &lab);
            }
            let (plan, path) = plan_of(&common)?;
            let o = options(&common)?;
            for l in crate::run::distributed::plan_lines(&plan, &path, &o, &lab) {
                println!("{l}");
            }
            Ok(0)
        }
        Cmd::RunOne { common, index } => {
            let (plan, _) = plan_of(&common)?;
            let o = options(&common)?;
            crate::run::distributed::run_one(&plan, index, &o)?;
            Ok(0)
        }
        Cmd::Collect { dirs, out, pool } => {
            let merged = crate::run::distributed::collect(&dirs, &out, pool)?;
            for d in &merged {
                crate::report::report(d)?;
            }
            for d in &merged {
                println!("report: {}", d.join("report.html").display());
            }
            Ok(0)
        }
        Cmd::Tune(a) => tune(a),
        Cmd::Capacity(a) => capacity(a),
        Cmd::Parse { stdout, stderr } => {
            println!("{}", parse_json(&stdout, stderr.as_deref())?);
            Ok(0)
        }
        Cmd::Simulate {
            trials,
            repeats,
            cv,
            min_effect,
        } => {
            if trials == 0 || repeats.contains(&0) || !(min_effect > 0.0 && min_effect < 1.0) {
                anyhow::bail!("simulate: --trials and --repeats must be positive and --min-effect between 0 and 1");
            }
            print!(
                "{}",
                crate::judge::verdict::sim::table(&repeats, &cv, min_effect, trials)
            );
            Ok(0)
        }
        Cmd::Parity { a, b, factor } => {
            if factor.is_nan() || factor < 1.0 {
                anyhow::bail!("parity: --factor must be at least 1 (got {factor})");
            }
            let read =
                |p: &PathBuf| -> anyhow::Result<(String, strata_bench::dbbench_text::BenchOutput)> {
                    let text = std::fs::read_to_string(p)
                        .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
                    let o = strata_bench::dbbench_text::parse_output(&text, "");
                    let name = p.display().to_string();
                    Ok((name, o))
                };
            let ((an, ao), (bn, bo)) = (read(&a)?, read(&b)?);
            print!(
                "{}",
                crate::data::parity::report((&an, &ao), (&bn, &bo), factor)
                    .map_err(anyhow::Error::msg)?
            );
            Ok(0)
        }
        Cmd::Metrics => {
            print!("{}", crate::data::metrics::table());
            Ok(0)
        }
        Cmd::Check { study, scale } => {
            if let Some(cap) = capacity_file(&study) {
                return check_capacity(&cap, &scale);
            }
            let path = crate::spec::resolve_study_path(&study);
            let spec = crate::spec::load(&path)?;
            let plan = crate::spec::model::expand(&spec, &scale, None, None)?;
            println!(
                "{}: {} cells x {} repeats x {} engines = {} runs; disk per run up to {}",
                path.display(),
                plan.cells.len(),
                plan.repeats,
                plan.engines.len(),
                plan.jobs.len(),
                crate::run::process::gb(plan.max_disk_need())
            );
            let host = crate::run::host::host_info(std::path::Path::new(".")).cores;
            let pinned = plan
                .cells
                .iter()
                .filter(|c| c.cpus.is_some_and(|n| n > host))
                .count();
            if pinned > 0 {
                println!(
                    "{pinned} of the {} cells pin more cores than this host's {host} and are skipped here: {} runs",
                    plan.cells.len(),
                    (plan.cells.len() - pinned) * plan.repeats as usize * plan.engines.len()
                );
            }
            Ok(0)
        }
    }
}

/// The capacity file `arg` names, if it names one: a study path or name
/// whose file has an `[slo]` table, or a name under `studies/capacity/`
/// that no study has.
fn capacity_file(arg: &str) -> Option<PathBuf> {
    let has_slo = |p: &std::path::Path| {
        std::fs::read_to_string(p)
            .ok()
            .and_then(|t| t.parse::<toml::Table>().ok())
            .is_some_and(|t| t.contains_key("slo"))
    };
    let study = crate::spec::resolve_study_path(arg);
    if has_slo(&study) {
        return Some(study);
    }
    let capacity = crate::spec::resolve_in(arg, "studies/capacity");
    (!study.exists() && capacity.exists()).then_some(capacity)
}

/// `lab check` of a capacity file: its searches, a run's length and the
/// disk a run may need at `scale`.
fn check_capacity(path: &std::path::Path, scale: &str) -> anyhow::Result<i32> {
    let cap = crate::capacity::spec::load(&path.display().to_string())?;
    let o = crate::capacity::driver::CapacityOptions {
        scale: scale.to_string(),
        ..Default::default()
    };
    let plan = crate::capacity::driver::plan_of(&cap, &o)?;
    let w = cap
        .spec
        .window
        .get(scale)
        .ok_or_else(|| anyhow::anyhow!("{}: no `[window.{scale}]`", path.display()))?;
    let configs: Vec<String> = cap.configs().into_iter().map(|c| c.name).collect();
    println!(
        "{}: capacity searches of {} engines x {} configurations ({}); a run loads, then paces the mix for {} s ({} s warm-up, {} s judged); up to {} paced runs per search; disk per run up to {}",
        path.display(),
        plan.engines.len(),
        configs.len(),
        configs.join(", "),
        w.warmup_seconds + w.window_seconds,
        w.warmup_seconds,
        w.window_seconds,
        cap.spec.search.max_runs,
        crate::run::process::gb(plan.max_disk_need())
    );
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_names_a_capacity_file_by_its_slo_or_its_folder() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../studies");
        let by_path = format!("{root}/capacity/ycsb_a_1kb.toml");
        assert_eq!(capacity_file(&by_path), Some(PathBuf::from(&by_path)));
        assert!(capacity_file(&format!("{root}/blob.toml")).is_none());
        assert_eq!(
            check_capacity(std::path::Path::new(&by_path), "full").unwrap(),
            0
        );
        let e = check_capacity(std::path::Path::new(&by_path), "nope").unwrap_err();
        assert!(e.to_string().contains("nope"), "{e}");
    }

    fn common(extra: &[&str]) -> Common {
        let study = concat!(env!("CARGO_MANIFEST_DIR"), "/../../studies/blob.toml");
        let mut args = vec!["strata lab", "plan", study];
        args.extend_from_slice(extra);
        match Cli::try_parse_from(args).unwrap().cmd {
            Cmd::Plan { common, .. } => common,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn set_and_timeout_reach_the_plan() {
        let (p, _) = plan_of(&common(&[
            "--set",
            "num=7",
            "--set",
            "--seed=3",
            "--timeout",
            "5",
        ]))
        .unwrap();
        assert_eq!(p.fixed.get("num").map(String::as_str), Some("7"));
        assert_eq!(p.fixed.get("seed").map(String::as_str), Some("3"));
        assert_eq!(p.timeout, Some(std::time::Duration::from_secs(5)));
        assert_eq!(p.set.len(), 2);
    }

    #[test]
    fn bad_engine_and_bad_set_are_rejected() {
        let e = plan_of(&common(&["--engines", "strata,wiredtiger"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("wiredtiger") && e.contains("fjall"), "{e}");
        assert!(plan_of(&common(&["--engines", "strata,leveldb,fjall"])).is_ok());
        assert!(plan_of(&common(&["--set", "novalue"])).is_err());
        // A mistyped flag was once accepted and failed every run.
        for bad in ["nosuch_flag=1", "=1", "--=1"] {
            let e = plan_of(&common(&["--set", bad])).unwrap_err().to_string();
            assert!(e.contains("no db_bench flag named"), "{bad}: {e}");
        }
        assert!(Cli::try_parse_from(["strata lab", "plan", "blob", "--timeout", "0"]).is_err());
    }

    #[test]
    fn parse_subcommand_prints_fields_of_a_saved_output() {
        let d = concat!(env!("CARGO_MANIFEST_DIR"), "/../strata-bench/testdata");
        let out = std::path::PathBuf::from(format!("{d}/fillrandom_compact_7.8.3.stdout"));
        let err = std::path::PathBuf::from(format!("{d}/fillrandom_compact_7.8.3.stderr"));
        let j = parse_json(&out, Some(&err)).unwrap();
        assert_eq!(j["engine_version"], "RocksDB 7.8.3");
        assert_eq!(j["benchmarks"][0], "fillrandom");
        let fields: Vec<&str> = j["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for f in [
            "bench:fillrandom.mb_sec",
            "hist:fillrandom/write.p999",
            "ticker:rocksdb.stall.micros",
            "stathist:rocksdb.compaction.times.cpu_micros",
            "compaction:W-Amp",
            "stall:cumulative",
        ] {
            assert!(fields.contains(&f), "{f} missing from {fields:?}");
        }
        assert!(j["metrics"]["waf"].as_f64().unwrap() > 0.0);
        // W-Amp at full precision: (flush + compaction) / flush bytes, from the tickers.
        let o = strata_bench::dbbench_text::parse_output(
            &std::fs::read_to_string(&out).unwrap(),
            &std::fs::read_to_string(&err).unwrap(),
        );
        let flush = o.tickers["rocksdb.flush.write.bytes"] as f64;
        let comp = o.tickers["rocksdb.compact.write.bytes"] as f64;
        let exact = j["metrics"]["wamp_exact"].as_f64().unwrap();
        assert!(flush > 0.0 && comp > 0.0);
        assert!((exact - (flush + comp) / flush).abs() < 1e-12, "{exact}");
        assert!(j["metrics"].get("wall_sec").is_none());
        assert!(parse_json(std::path::Path::new("/nonexistent/x"), None).is_err());
        let cli = Cli::try_parse_from(["strata lab", "parse", "x.out", "--stderr", "x.err"]);
        assert!(matches!(cli.unwrap().cmd, Cmd::Parse { .. }));
    }

    #[test]
    fn run_cli_reports_usage_errors_as_exit_code() {
        assert_eq!(crate::run_cli(vec!["nonsense".into()]).unwrap(), 2);
        assert_eq!(crate::run_cli(vec!["--help".into()]).unwrap(), 0);
    }
}
