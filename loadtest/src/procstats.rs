//! CPU and memory of the server processes (`--pids`), of the generator itself and of the
//! whole machine, sampled from /proc at the marks between a run's phases.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::cli::Pid;
use crate::latency::round2;

/// One process at one mark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcSample {
    /// utime + stime, in seconds.
    pub cpu_s: f64,
    pub rss_kb: u64,
    pub hwm_kb: u64,
}

#[derive(Debug, Clone)]
struct Mark {
    name: &'static str,
    at: Instant,
    generator_cpu_s: Option<f64>,
    procs: Vec<Option<ProcSample>>,
    machine_busy_s: Option<f64>,
}

/// The marks of one run.
#[derive(Debug)]
pub struct Marks {
    pids: Vec<Pid>,
    clk_tck: f64,
    marks: Vec<Mark>,
}

impl Marks {
    pub fn new(pids: Vec<Pid>) -> Self {
        Self {
            pids,
            clk_tck: clock_ticks(),
            marks: Vec::new(),
        }
    }

    /// Samples everything now, under `name`.
    pub fn mark(&mut self, name: &'static str) {
        let procs = self
            .pids
            .iter()
            .map(|p| sample(&p.pid.to_string(), self.clk_tck))
            .collect();
        self.marks.push(Mark {
            name,
            at: Instant::now(),
            generator_cpu_s: sample("self", self.clk_tck).map(|s| s.cpu_s),
            procs,
            machine_busy_s: machine_busy(self.clk_tck),
        });
    }

    fn find(&self, name: &str) -> Option<&Mark> {
        self.marks.iter().rev().find(|m| m.name == name)
    }

    /// VmRSS of all the listed processes at the mark, in KiB.
    pub fn rss_kb_at(&self, name: &str) -> Option<u64> {
        let m = self.find(name)?;
        if self.pids.is_empty() {
            return None;
        }
        Some(m.procs.iter().flatten().map(|p| p.rss_kb).sum())
    }

    /// CPU-seconds all the listed processes used from mark `from` to mark `to`.
    pub fn server_cpu_between(&self, from: &str, to: &str) -> Option<f64> {
        let (a, b) = (self.find(from)?, self.find(to)?);
        if self.pids.is_empty() {
            return None;
        }
        Some(
            a.procs
                .iter()
                .zip(&b.procs)
                .filter_map(|(x, y)| Some(y.as_ref()?.cpu_s - x.as_ref()?.cpu_s))
                .sum(),
        )
    }

    pub fn report(&self) -> CpuReport {
        let (Some(first), Some(last)) = (self.marks.first(), self.marks.last()) else {
            return CpuReport::default();
        };
        let delta = |x: Option<f64>, y: Option<f64>| Some(y? - x?);
        let mut phases = Vec::new();
        for pair in self.marks.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let wall_s = b.at.duration_since(a.at).as_secs_f64();
            let mut per_process = BTreeMap::new();
            let mut total = 0.0;
            for (k, p) in self.pids.iter().enumerate() {
                let d = delta(a.procs[k].map(|s| s.cpu_s), b.procs[k].map(|s| s.cpu_s));
                total += d.unwrap_or(0.0);
                per_process.insert(p.name.clone(), d.map(round2));
            }
            let generator = delta(a.generator_cpu_s, b.generator_cpu_s);
            let busy = delta(a.machine_busy_s, b.machine_busy_s);
            phases.push(PhaseCpu {
                phase: b.name,
                wall_s: round2(wall_s),
                server_cpu_s: round2(total),
                server_cores: if wall_s > 0.0 {
                    round2(total / wall_s)
                } else {
                    0.0
                },
                per_process_cpu_s: per_process,
                generator_cpu_s: generator.map(round2),
                machine_busy_cores: busy.filter(|_| wall_s > 0.0).map(|b| round2(b / wall_s)),
                other_cpu_s: busy
                    .filter(|_| !self.pids.is_empty())
                    .map(|b| round2((b - total - generator.unwrap_or(0.0)).max(0.0))),
            });
        }
        let mut servers = BTreeMap::new();
        let mut server_cpu = 0.0;
        for (k, p) in self.pids.iter().enumerate() {
            let cpu = delta(
                first.procs[k].map(|s| s.cpu_s),
                last.procs[k].map(|s| s.cpu_s),
            );
            server_cpu += cpu.unwrap_or(0.0);
            servers.insert(
                p.name.clone(),
                ProcReport {
                    pid: p.pid,
                    cpu_s: cpu.map(round2),
                    rss_mb_at: Ordered(
                        self.marks
                            .iter()
                            .map(|m| (m.name, m.procs[k].map(|s| mb(s.rss_kb))))
                            .collect(),
                    ),
                    peak_rss_mb: self
                        .marks
                        .iter()
                        .filter_map(|m| m.procs[k].map(|s| s.hwm_kb))
                        .max()
                        .map(mb),
                    alive_at_end: last.procs[k].is_some(),
                },
            );
        }
        CpuReport {
            clk_tck: self.clk_tck,
            generator_cpu_s: delta(first.generator_cpu_s, last.generator_cpu_s).map(round2),
            server_cpu_s: (!self.pids.is_empty()).then(|| round2(server_cpu)),
            servers,
            phases,
        }
    }
}

fn mb(kb: u64) -> f64 {
    (kb as f64 / 1024.0 * 10.0).round() / 10.0
}

/// CPU by phase and per process, memory at every mark.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CpuReport {
    pub clk_tck: f64,
    /// CPU-seconds of the load generator over the whole run.
    pub generator_cpu_s: Option<f64>,
    /// CPU-seconds of all `--pids` processes over the whole run.
    pub server_cpu_s: Option<f64>,
    pub servers: BTreeMap<String, ProcReport>,
    pub phases: Vec<PhaseCpu>,
}

impl CpuReport {
    /// Lines for the table output.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let servers = self
            .servers
            .iter()
            .map(|(k, v)| format!("{k} {:.2}", v.cpu_s.unwrap_or(0.0)))
            .collect::<Vec<_>>()
            .join(", ");
        out.push(format!(
            "cpu: generator {:.2} s{}",
            self.generator_cpu_s.unwrap_or(0.0),
            match self.server_cpu_s {
                Some(s) => format!(", servers {s:.2} s ({servers})"),
                None => String::new(),
            }
        ));
        for p in &self.phases {
            out.push(format!(
                "  phase {:<10} {:>7.2} s wall, servers {:.2} CPU-s ({:.2} cores), generator {:.2} CPU-s{}",
                p.phase,
                p.wall_s,
                p.server_cpu_s,
                p.server_cores,
                p.generator_cpu_s.unwrap_or(0.0),
                p.other_cpu_s
                    .map(|o| format!(", other {o:.2} CPU-s"))
                    .unwrap_or_default()
            ));
        }
        for (name, s) in &self.servers {
            let at = s
                .rss_mb_at
                .0
                .iter()
                .map(|(phase, mb)| match mb {
                    Some(mb) => format!("{phase} {mb}"),
                    None => format!("{phase} -"),
                })
                .collect::<Vec<_>>()
                .join(" → ");
            out.push(format!(
                "  rss {name}: {at} MB (peak {})",
                s.peak_rss_mb
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| "-".into())
            ));
        }
        out
    }

    /// A warning when other processes used more than 10 % of the CPU the servers and the
    /// generator used: the figures are disturbed.
    pub fn disturbed(&self) -> Option<String> {
        let servers = self.server_cpu_s?;
        let other: f64 = self.phases.iter().filter_map(|p| p.other_cpu_s).sum();
        let ours = servers + self.generator_cpu_s.unwrap_or(0.0);
        (other > 0.1 * ours && other > 0.2).then(|| {
            format!(
                "other processes used {other:.1} CPU-s during the run (cpu.phases[].otherCpuS); \
                 timing figures are disturbed"
            )
        })
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcReport {
    pub pid: u32,
    pub cpu_s: Option<f64>,
    /// VmRSS at each mark, in MB, in the order of the marks.
    pub rss_mb_at: Ordered,
    /// The largest VmHWM seen.
    pub peak_rss_mb: Option<f64>,
    pub alive_at_end: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseCpu {
    /// The mark that ends the phase.
    pub phase: &'static str,
    pub wall_s: f64,
    pub server_cpu_s: f64,
    pub server_cores: f64,
    pub per_process_cpu_s: BTreeMap<String, Option<f64>>,
    pub generator_cpu_s: Option<f64>,
    pub machine_busy_cores: Option<f64>,
    /// CPU of everything else on the machine: near 0 for a clean measurement.
    pub other_cpu_s: Option<f64>,
}

/// Pairs serialised as a JSON object, in their order.
#[derive(Debug)]
pub struct Ordered(pub Vec<(&'static str, Option<f64>)>);

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// `/proc/<which>/stat` and `/proc/<which>/status`; `None` when the process is gone.
fn sample(which: &str, clk_tck: f64) -> Option<ProcSample> {
    let stat = std::fs::read_to_string(format!("/proc/{which}/stat")).ok()?;
    let status = std::fs::read_to_string(format!("/proc/{which}/status")).ok()?;
    parse_sample(&stat, &status, clk_tck)
}

fn parse_sample(stat: &str, status: &str, clk_tck: f64) -> Option<ProcSample> {
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 2..)?.split(' ').collect();
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    let kb = |key: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    Some(ProcSample {
        cpu_s: (utime + stime) / clk_tck,
        rss_kb: kb("VmRSS:"),
        hwm_kb: kb("VmHWM:"),
    })
}

/// Busy CPU-seconds of the whole machine, from the first line of /proc/stat.
fn machine_busy(clk_tck: f64) -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let f: Vec<f64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // user nice system idle iowait irq softirq steal
    let busy = [0, 1, 2, 5, 6, 7]
        .iter()
        .map(|&k| f.get(k).copied().unwrap_or(0.0))
        .sum::<f64>();
    Some(busy / clk_tck)
}

/// `getconf CLK_TCK`, else 100 (Linux's USER_HZ everywhere).
fn clock_ticks() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|t| *t > 0.0)
        .unwrap_or(100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stat_and_status() {
        let stat = "4242 (tele pathy (x)) S 1 4242 4242 0 -1 4194560 2000 0 0 0 250 50 0 0 20 0 9 0 100 1000000 500 18446744073709551615";
        let status = "Name:\ttelepathy\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t9\n";
        let s = parse_sample(stat, status, 100.0).unwrap();
        assert_eq!(s.cpu_s, 3.0);
        assert_eq!((s.rss_kb, s.hwm_kb), (10240, 20480));
        assert!(parse_sample("garbage", status, 100.0).is_none());
    }

    #[test]
    fn samples_this_process() {
        let mut marks = Marks::new(vec![Pid {
            name: "me".into(),
            pid: std::process::id(),
        }]);
        marks.mark("start");
        let mut x = 0u64;
        for k in 0..2_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(k);
        }
        assert_ne!(x, 1);
        marks.mark("end");
        let r = marks.report();
        assert_eq!(r.phases.len(), 1);
        assert!(r.servers["me"].alive_at_end);
        assert!(r.servers["me"].peak_rss_mb.unwrap() > 0.0);
        assert!(marks.rss_kb_at("end").unwrap() > 0);
        assert!(marks.server_cpu_between("start", "end").unwrap() >= 0.0);
        let json = serde_json::to_string(&r).unwrap();
        let at = &json[json.find("\"rssMbAt\":{").unwrap()..];
        assert!(
            at.find("\"start\"").unwrap() < at.find("\"end\"").unwrap(),
            "{at}"
        );
    }
}
