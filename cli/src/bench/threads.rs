//! The process's CPU by thread, from `/proc/self/task` (Linux; `None` elsewhere): which pool
//! spent a fuzz row's CPU. The pools name their threads (`generate-3`, `reference-12`,
//! `global-0`, `compile-5`, `lane-1`, `worker-reader`), so a row's CPU is summed by that name
//! less its number. A thread that ended during the row is gone from `/proc` with its count: what
//! the process spent beyond its live threads is put down as [`ENDED`].

use std::collections::{BTreeMap, HashMap};

/// The group of the CPU of threads that ended between two snapshots.
pub const ENDED: &str = "ended threads";

/// The group of the main thread and of threads nobody named (they take the process's name).
pub const MAIN: &str = "main and unnamed";

/// Clock ticks a second of `/proc`'s CPU fields (`USER_HZ`, 100 on Linux).
const TICKS_A_SECOND: f64 = 100.0;

/// One reading of the process's threads.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The process's name (the main thread's, which unnamed threads share).
    process_name: String,
    /// The process's own CPU (all threads, ended ones included) and its ended children's.
    process: Ticks,
    children: Ticks,
    /// Each live thread's name and CPU, by thread id.
    threads: HashMap<u64, (String, Ticks)>,
}

type Ticks = u64;

/// A `stat` line's name (field 2) and its fields from the third on. The name is parenthesised
/// and may itself hold spaces and parentheses: it ends at the last `)`.
fn split_stat(line: &str) -> Option<(&str, Vec<&str>)> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let name = line.get(open + 1..close)?;
    let rest = line.get(close + 1..)?.split_whitespace().collect();
    Some((name, rest))
}

/// Field `n` (numbered from 1, as `proc(5)` does) of a `stat` line's fields from the third on.
fn field(rest: &[&str], n: usize) -> Option<Ticks> {
    rest.get(n.checked_sub(3)?)?.parse().ok()
}

/// User and system time (fields 14 and 15), and the ended children's (16 and 17).
fn own_and_children(rest: &[&str]) -> Option<(Ticks, Ticks)> {
    Some((
        field(rest, 14)? + field(rest, 15)?,
        field(rest, 16)? + field(rest, 17)?,
    ))
}

/// The process's CPU seconds and its ended children's, from `/proc/self/stat`.
pub fn process_cpu_s() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let (_, rest) = split_stat(&stat)?;
    let (own, children) = own_and_children(&rest)?;
    Some((
        own as f64 / TICKS_A_SECOND,
        children as f64 / TICKS_A_SECOND,
    ))
}

/// Read the process and every live thread.
pub fn snapshot() -> Option<Snapshot> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let (name, rest) = split_stat(&stat)?;
    let (process, children) = own_and_children(&rest)?;
    let mut threads = HashMap::new();
    for entry in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        // A thread may end between the listing and the read.
        let Ok(line) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((comm, rest)) = split_stat(&line) {
            if let Some((own, _)) = own_and_children(&rest) {
                threads.insert(tid, (comm.to_string(), own));
            }
        }
    }
    Some(Snapshot {
        process_name: name.to_string(),
        process,
        children,
        threads,
    })
}

/// A thread's group: its name less a trailing `-<number>`; the process's own name is [`MAIN`].
fn group_of<'a>(thread: &'a str, process_name: &str) -> &'a str {
    if thread == process_name {
        return MAIN;
    }
    match thread.rsplit_once('-') {
        Some((stem, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => stem,
        _ => thread,
    }
}

/// CPU seconds spent between `before` and `after`, by group of threads: each live thread's
/// since `before` (all of it for one started since), [`ENDED`] for the process's rest, and
/// `ptxas and ended children` for the children that ended in between.
pub fn between(before: &Snapshot, after: &Snapshot) -> BTreeMap<String, f64> {
    let mut ticks: BTreeMap<String, Ticks> = BTreeMap::new();
    let mut live = 0;
    for (tid, (name, now)) in &after.threads {
        let was = before
            .threads
            .get(tid)
            .filter(|(n, _)| n == name)
            .map_or(0, |(_, t)| *t);
        let spent = now.saturating_sub(was);
        live += spent;
        *ticks
            .entry(group_of(name, &after.process_name).to_string())
            .or_default() += spent;
    }
    ticks.insert(
        ENDED.into(),
        after
            .process
            .saturating_sub(before.process)
            .saturating_sub(live),
    );
    ticks.insert(
        CHILDREN.into(),
        after.children.saturating_sub(before.children),
    );
    ticks
        .into_iter()
        .filter(|(_, t)| *t > 0)
        .map(|(g, t)| (g, t as f64 / TICKS_A_SECOND))
        .collect()
}

/// The group of the children that ended between two snapshots (ptxas runs; a GPU worker
/// replaced after a trap or past its module bound).
pub const CHILDREN: &str = "ptxas and ended children";

/// CPU a program by group as a line, largest first.
pub fn line(ms_a_program: &BTreeMap<String, f64>) -> String {
    let mut v: Vec<(&String, &f64)> = ms_a_program.iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(g, ms)| format!("{g} {ms:.3}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_past_a_name_with_spaces_and_parentheses() {
        let line = "4242 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 111 22 33 44 20 0 9 0";
        let (name, rest) = split_stat(line).unwrap();
        assert_eq!(name, "a (b) c");
        assert_eq!(own_and_children(&rest), Some((133, 77)));
        assert_eq!(split_stat("no name here"), None);
    }

    #[test]
    fn threads_are_grouped_by_their_name_less_its_number() {
        assert_eq!(group_of("generate-12", "ptxconform"), "generate");
        assert_eq!(group_of("worker-reader", "ptxconform"), "worker-reader");
        assert_eq!(group_of("lane-", "ptxconform"), "lane-");
        assert_eq!(group_of("ptxconform", "ptxconform"), MAIN);
    }

    #[test]
    fn a_rows_cpu_is_each_live_threads_since_before_and_the_rest_ended() {
        let snap = |process, children, threads: &[(u64, &str, u64)]| Snapshot {
            process_name: "p".into(),
            process,
            children,
            threads: threads
                .iter()
                .map(|&(tid, n, t)| (tid, (n.to_string(), t)))
                .collect(),
        };
        let before = snap(
            100,
            5,
            &[(1, "p", 40), (2, "global-0", 50), (3, "drop", 10)],
        );
        // Thread 3 ended; thread 4 started; thread id 2 was reused by another pool's thread.
        let after = snap(
            300,
            25,
            &[(1, "p", 60), (2, "generate-0", 30), (4, "global-1", 70)],
        );
        let got = between(&before, &after);
        let want: BTreeMap<String, f64> = [
            (MAIN, 0.2),
            ("generate", 0.3),
            ("global", 0.7),
            (ENDED, 0.8),
            (CHILDREN, 0.2),
        ]
        .into_iter()
        .map(|(g, s)| (g.to_string(), s))
        .collect();
        assert_eq!(got, want);
        assert_eq!(
            line(&got),
            "ended threads 0.800, global 0.700, generate 0.300, main and unnamed 0.200, \
             ptxas and ended children 0.200"
        );
    }

    /// A named thread's CPU shows under its group.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_busy_named_thread_is_counted_in_its_group() {
        let before = snapshot().expect("/proc/self on Linux");
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = std::thread::Builder::new()
            .name("busytest-7".into())
            .spawn(move || {
                // Spin until this thread's own count shows CPU, then wait to be read.
                let mut x = 0u64;
                loop {
                    for i in 0..1_000_000u64 {
                        x = x.wrapping_mul(31).wrapping_add(i);
                    }
                    let me = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
                    let (_, rest) = split_stat(&me).unwrap();
                    if own_and_children(&rest).unwrap().0 >= 2 {
                        break;
                    }
                }
                tx.send(x).unwrap();
                std::thread::park();
            })
            .unwrap();
        rx.recv().unwrap();
        let after = snapshot().unwrap();
        worker.thread().unpark();
        worker.join().unwrap();
        assert!(between(&before, &after)["busytest"] >= 0.02);
    }
}
