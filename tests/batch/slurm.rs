//! `webdiet batch` on a real Slurm: a one-node cluster (munged, slurmctld, slurmd) started
//! here in a temporary directory, the job scripts of `contrib/slurm/` submitted as an array
//! and a merge job depending on it, and the failure path (one unit fails its index alone; a
//! rerun of that index completes the collection). Skipped with a note when Slurm is not
//! installed (`apt-get install slurmd slurmctld slurm-client munge`); fails then in CI.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{microscape, seeded_gif, write_site};
use webdiet::merge::Collection;

const TOOLS: [&str; 6] = [
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "sinfo",
    "scontrol",
];

fn find(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/usr/bin".into(), "/sbin".into()])
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

/// The cluster's daemons, stopped by their PIDs when the test ends, passes or fails.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    daemons: Vec<(&'static str, Child)>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // slurmd first, munged last: each is stopped by its own PID, never by name.
        for (name, child) in self.daemons.iter_mut().rev() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(100));
            }
            if child.try_wait().ok().flatten().is_none() {
                eprintln!("note: {name} ignored SIGTERM; killing it");
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        let tool = |name: &str| find(name).unwrap();
        for sub in ["munge", "spool", "state", "log"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let munge = dir.join("munge");
        let key: Vec<u8> = (0..1024u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        std::fs::write(munge.join("munge.key"), key).unwrap();
        set_mode(&munge.join("munge.key"), 0o400);
        set_mode(&munge, 0o700);
        let socket = munge.join("munge.socket");
        let host = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        // Ports of this process's own, so that two test runs (or a site's Slurm) do not meet,
        // and below the kernel's ephemeral range (32768 up), where the other tests' loopback
        // connections would sometimes hold them.
        let port = 20000 + (std::process::id() % 6000) as u16 * 2;
        let d = dir.display();
        let conf = dir.join("slurm.conf");
        std::fs::write(
            &conf,
            format!(
                "ClusterName=ci\nSlurmctldHost={host}(127.0.0.1)\nSlurmctldPort={port}\n\
                 SlurmdPort={}\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\n\
                 AuthInfo=socket={}\nCredType=cred/munge\nProctrackType=proctrack/pgid\n\
                 TaskPlugin=task/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n\
                 SwitchType=switch/none\nMpiDefault=none\nJobAcctGatherType=jobacct_gather/none\n\
                 AccountingStorageType=accounting_storage/none\nStateSaveLocation={d}/state\n\
                 SlurmdSpoolDir={d}/spool\nSlurmctldPidFile={d}/slurmctld.pid\n\
                 SlurmdPidFile={d}/slurmd.pid\nSlurmctldLogFile={d}/log/slurmctld.log\n\
                 SlurmdLogFile={d}/log/slurmd.log\nReturnToService=2\nMinJobAge=3600\n\
                 NodeName=ci-node NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN\n\
                 PartitionName=ci Nodes=ci-node Default=YES MaxTime=INFINITE State=UP\n",
                port + 1,
                socket.display()
            ),
        )
        .unwrap();
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            conf: conf.clone(),
            daemons: Vec::new(),
        };
        let log = |name: &str| std::fs::File::create(dir.join("log").join(name)).unwrap();
        let spawn = |cmd: &mut Command, out: &str| {
            cmd.env("SLURM_CONF", &conf)
                .stdin(Stdio::null())
                .stdout(log(out))
                .stderr(log(out))
                .spawn()
                .unwrap()
        };
        let munged = spawn(
            Command::new(tool("munged"))
                .args(["-F", "-f"])
                .arg(format!("--socket={}", socket.display()))
                .arg(format!("--key-file={}", munge.join("munge.key").display()))
                .arg(format!(
                    "--log-file={}",
                    dir.join("log/munged.log").display()
                ))
                .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
                .arg(format!("--seed-file={}", munge.join("seed").display())),
            "munged.out",
        );
        cluster.daemons.push(("munged", munged));
        assert!(
            wait_for("munged's socket", || socket.exists()),
            "munged made no socket in {WAIT:?}"
        );
        let ctld = spawn(
            Command::new(tool("slurmctld")).args(["-D", "-i"]),
            "ctld.out",
        );
        cluster.daemons.push(("slurmctld", ctld));
        std::thread::sleep(Duration::from_millis(500));
        let slurmd = spawn(
            Command::new(tool("slurmd")).args(["-D", "-N", "ci-node"]),
            "slurmd.out",
        );
        cluster.daemons.push(("slurmd", slurmd));
        let idle = wait_for("the node to be idle", || {
            cluster
                .slurm("sinfo", &["-h", "-o", "%T"])
                .is_some_and(|s| s.trim() == "idle")
        });
        if !idle {
            let tail = |name: &str| {
                let text = std::fs::read_to_string(dir.join("log").join(name)).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                lines[lines.len().saturating_sub(20)..].join("\n")
            };
            panic!(
                "the node was not idle after {WAIT:?}; sinfo says {:?}\n\
                 slurmctld.log:\n{}\nslurmd.log:\n{}",
                cluster.slurm("sinfo", &["-h", "-o", "%T %E"]),
                tail("slurmctld.log"),
                tail("slurmd.log"),
            );
        }
        cluster
    }

    /// Runs a Slurm client; its stdout when it exits 0.
    fn slurm(&self, tool: &str, args: &[&str]) -> Option<String> {
        let out = Command::new(find(tool)?)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// `sbatch --wait --parsable ARGS SCRIPT` with `env`: the job ID and whether it succeeded.
    fn sbatch(&self, args: &[&str], script: &str, env: &[(&str, &Path)]) -> (String, bool) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("contrib/slurm")
            .join(script);
        let mut cmd = Command::new(find("sbatch").unwrap());
        cmd.args(["--wait", "--parsable", "--cpus-per-task=1", "--no-requeue"])
            .arg("--open-mode=append")
            .args(args)
            .arg(format!("--output={}/log/job-%A_%a.out", self.dir.display()))
            .arg(script)
            .env("SLURM_CONF", &self.conf)
            .env("WEBDIET", env!("CARGO_BIN_EXE_webdiet"))
            .env_remove("WEBDIET_SHARDS")
            .current_dir(&self.dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let id = String::from_utf8_lossy(&out.stdout)
            .trim()
            .split(';')
            .next()
            .unwrap_or("")
            .to_string();
        assert!(
            !id.is_empty(),
            "sbatch: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        (id, out.status.success())
    }

    /// `JobState` of each task of an array job, by task index.
    fn states(&self, array: &str) -> std::collections::BTreeMap<String, String> {
        let text = self
            .slurm("scontrol", &["show", "job", array, "-o"])
            .unwrap_or_default();
        text.lines()
            .filter_map(|line| {
                let field = |k: &str| {
                    line.split_whitespace()
                        .find_map(|f| f.strip_prefix(k))
                        .map(str::to_string)
                };
                Some((field("ArrayTaskId=")?, field("JobState=")?))
            })
            .collect()
    }

    /// A task's output, once it holds `expected` (slurmstepd may still be writing it when
    /// `sbatch --wait` returns), or as it is after 15 s.
    fn log_with(&self, job: &str, task: &str, expected: &str) -> String {
        let path = self.dir.join(format!("log/job-{job}_{task}.out"));
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.contains(expected) || Instant::now() > deadline {
                return text;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn log(&self, job: &str, task: &str) -> String {
        self.log_with(job, task, "\n")
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// How long a daemon may take to come up: generous, since CI machines are busy.
const WAIT: Duration = Duration::from_secs(180);

/// Whether `ready` came true within [`WAIT`], polling it.
fn wait_for(what: &str, ready: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + WAIT;
    while !ready() {
        if Instant::now() > deadline {
            eprintln!("timed out waiting for {what}");
            return false;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    true
}

/// Five sites of our own and the default corpus, one per line; `extra` lines after them.
fn list(root: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let mut lines = Vec::new();
    for i in 0..5 {
        let site = format!("site-{i}");
        let page = format!(
            "<html><body bgcolor=white><center><font color=red>site {i}</font></center>\
             <img src=pic.gif width=64 height=48></body></html>\n"
        );
        write_site(
            &root.join(&site),
            &[("index.html", page.as_bytes()), ("pic.gif", &seeded_gif(i))],
        );
        lines.push(site);
    }
    lines.push(microscape().display().to_string());
    lines.extend(extra.iter().map(|s| s.to_string()));
    let path = root.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn collection(dir: &Path) -> Collection {
    serde_json::from_slice(&std::fs::read(dir.join("collection.json")).unwrap()).unwrap()
}

#[test]
fn a_slurm_array_and_its_merge_job_match_one_process_and_a_failed_index_reruns_alone() {
    let missing: Vec<&str> = TOOLS
        .iter()
        .copied()
        .filter(|t| find(t).is_none())
        .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI must install slurmd slurmctld slurm-client munge (missing: {missing:?})"
        );
        eprintln!("note: skipping, Slurm is not installed (missing: {missing:?})");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let cluster = Cluster::start(&root.join("slurm"));

    // The happy path: an array of 3 shards, 2 at a time, then the merge after it.
    let sites = list(root, "sites.txt", &[]);
    let (out, report) = (root.join("out"), root.join("collection"));
    let (array, ok) = cluster.sbatch(
        &["--array=0-2%2"],
        "batch.sbatch",
        &[("WEBDIET_LIST", &sites), ("WEBDIET_OUT", &out)],
    );
    assert!(ok, "array {array}: {}", cluster.log(&array, "0"));
    let (merge, ok) = cluster.sbatch(
        &[&format!("--dependency=afterok:{array}")],
        "merge.sbatch",
        &[("WEBDIET_OUT", &out), ("WEBDIET_REPORT", &report)],
    );
    assert!(ok, "merge {merge}: {}", cluster.log(&merge, "4294967294"));
    let single_out = root.join("single");
    let status = Command::new(env!("CARGO_BIN_EXE_webdiet"))
        .arg("batch")
        .arg(&sites)
        .arg("--out")
        .arg(&single_out)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .status()
        .unwrap();
    assert!(status.success());
    let single = Collection::of_batch(&single_out).unwrap();
    let merged = collection(&report);
    assert_eq!(merged.rows.len(), 6);
    assert_eq!(merged.without_timings(), single.without_timings());

    // The failure path: the seventh unit (index 6, shard 0) is not there yet.
    let sites = list(root, "late.txt", &["late"]);
    let (out, report) = (root.join("out-late"), root.join("collection-late"));
    let batch_env = [
        ("WEBDIET_LIST", sites.as_path()),
        ("WEBDIET_OUT", out.as_path()),
    ];
    let (array, ok) = cluster.sbatch(&["--array=0-2%2"], "batch.sbatch", &batch_env);
    assert!(!ok, "a failed unit fails the array");
    let states = cluster.states(&array);
    assert_eq!(
        states.values().filter(|s| *s == "FAILED").count(),
        1,
        "{states:?}"
    );
    assert_eq!(
        states.get("0").map(String::as_str),
        Some("FAILED"),
        "{states:?}"
    );
    let log = cluster.log_with(&array, "0", "unit late:");
    assert!(log.contains("unit late:"), "array {array} task 0: {log}");
    let (merge, ok) = cluster.sbatch(
        &[],
        "merge.sbatch",
        &[("WEBDIET_OUT", &out), ("WEBDIET_REPORT", &report)],
    );
    assert!(!ok, "merge refuses a missing unit");
    let merge_log = std::fs::read_dir(cluster.dir.join("log"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(&format!("job-{merge}_")))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_default();
    assert!(merge_log.contains("unit late:"), "{merge_log}");

    write_site(
        &root.join("late"),
        &[("index.html", b"<html><center>late</center></html>")],
    );
    let shards = PathBuf::from("3");
    let mut rerun_env = batch_env.to_vec();
    rerun_env.push(("WEBDIET_SHARDS", &shards));
    let (rerun, ok) = cluster.sbatch(&["--array=0"], "batch.sbatch", &rerun_env);
    let rerun_log = cluster.log_with(&rerun, "0", "0 failed");
    assert!(ok, "rerun: {rerun_log}");
    assert!(
        rerun_log.contains("3 units, 1 done now, 2 done before, 0 failed"),
        "{rerun_log}"
    );
    let (merge, ok) = cluster.sbatch(
        &[&format!("--dependency=afterok:{rerun}")],
        "merge.sbatch",
        &[("WEBDIET_OUT", &out), ("WEBDIET_REPORT", &report)],
    );
    assert!(ok, "merge {merge} after the rerun");
    let merged = collection(&report);
    assert!(merged.missing().is_empty());
    assert_eq!(merged.rows.len(), 7);
    drop(cluster);
}
