//! Shards: a deterministic partition of a run's cases or of a campaign's programs (program `k` of
//! the campaign is shard `k mod n`'s), for array jobs of Slurm and Kubernetes.
//!
//! A case goes by a stable hash of its identity (so adding a case moves only that case), except
//! the costly ones: a trap costs its report and a fresh worker (0.2–0.3 s each in the corpus)
//! and a hang its wait bound, so a shard's wall time follows its traps. Cases that the case or
//! the model expects to trap or hang are dealt round robin in hash order instead, so every shard
//! gets its share of them (adding one shifts only the costly cases after it).

use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// The scheduler variables `--shard auto` reads: Slurm array jobs, then Kubernetes Indexed Jobs
/// (which give the index only: the count comes from [`COUNT_VAR`], set in the job manifest).
const SLURM_INDEX: &str = "SLURM_ARRAY_TASK_ID";
const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";
const COUNT_VAR: &str = "PTXCONFORM_SHARD_COUNT";

impl Shard {
    /// The whole run.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    pub fn new(index: u64, count: u64) -> Result<Shard, String> {
        if count == 0 || index >= count {
            return Err(format!(
                "shard {index}/{count}: the index must be below the count (0-based)"
            ));
        }
        Ok(Shard { index, count })
    }

    /// `--shard auto`: from the array job's environment (`var` reads a variable).
    fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let num = |name: &str| -> Result<Option<u64>, String> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .map_err(|_| format!("{name}={v:?} is not a number"))
                })
                .transpose()
        };
        match (num(SLURM_INDEX)?, num(SLURM_COUNT)?) {
            // Slurm numbers array tasks as the job asked (`--array=0-3`); the count is how many.
            (Some(i), Some(n)) => return Shard::new(i, n),
            (Some(_), None) => {
                return Err(format!("{SLURM_INDEX} is set but {SLURM_COUNT} is not"))
            }
            _ => {}
        }
        match (num(K8S_INDEX)?, num(COUNT_VAR)?) {
            (Some(i), Some(n)) => Shard::new(i, n),
            (Some(_), None) => Err(format!(
                "{K8S_INDEX} is set but {COUNT_VAR} is not (set it to the Job's `completions`)"
            )),
            _ => Err(format!(
                "--shard auto: neither {SLURM_INDEX}/{SLURM_COUNT} (Slurm array job) nor \
                 {K8S_INDEX}/{COUNT_VAR} (Kubernetes Indexed Job) is set"
            )),
        }
    }

    pub fn index(self) -> u64 {
        self.index
    }
    pub fn count(self) -> u64 {
        self.count
    }
    pub fn is_all(self) -> bool {
        self.count == 1
    }

    /// Does this shard own the case `name` of `file`?
    pub fn owns_case(self, file: &str, name: &str) -> bool {
        self.is_all() || identity_hash(file, name) % self.count == self.index
    }

    /// The cases of `all` this shard owns, by their identities `(file, name, costly)`: the cheap
    /// ones by hash ([`Shard::owns_case`]), the costly ones dealt round robin in hash order.
    /// Every shard computes the same deal from the same case set.
    pub fn owns_cases<'a>(
        self,
        all: impl IntoIterator<Item = (&'a str, &'a str, bool)>,
    ) -> Vec<bool> {
        let all: Vec<(&str, &str, bool)> = all.into_iter().collect();
        let mut owned: Vec<bool> = all
            .iter()
            .map(|&(file, name, costly)| !costly && self.owns_case(file, name))
            .collect();
        let mut costly: Vec<(u64, usize)> = all
            .iter()
            .enumerate()
            .filter(|(_, c)| c.2)
            .map(|(i, &(file, name, _))| (identity_hash(file, name), i))
            .collect();
        costly.sort_unstable();
        for (k, (_, i)) in costly.into_iter().enumerate() {
            owned[i] = self.is_all() || k as u64 % self.count == self.index;
        }
        owned
    }

    /// The campaign-wide number of this shard's `k`-th program.
    pub fn program(self, k: u64) -> u64 {
        k * self.count + self.index
    }
}

fn identity_hash(file: &str, name: &str) -> u64 {
    ptxconform_core::hash::fnv1a64(format!("{file}\n{name}").as_bytes())
}

impl FromStr for Shard {
    type Err = String;
    /// `i/n` (0-based index) or `auto` (from the scheduler's environment).
    fn from_str(s: &str) -> Result<Shard, String> {
        if s == "auto" {
            return Shard::from_env(|k| std::env::var(k).ok());
        }
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("--shard {s:?}: expected INDEX/COUNT (e.g. 0/4) or auto"))?;
        let p = |x: &str| {
            x.trim()
                .parse::<u64>()
                .map_err(|_| format!("--shard {s:?}: `{x}` is not a number"))
        };
        Shard::new(p(i)?, p(n)?)
    }
}

impl From<Shard> for ptxconform_core::result::Shards {
    /// What a shard's results hold of its run's case set.
    fn from(s: Shard) -> Self {
        Self::of(s.count, [s.index].into()).expect("Shard::new keeps the index below the count")
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn parse_and_environment() {
        assert_eq!("1/4".parse::<Shard>().unwrap(), Shard::new(1, 4).unwrap());
        assert!("4/4"
            .parse::<Shard>()
            .unwrap_err()
            .contains("below the count"));
        assert!("x".parse::<Shard>().unwrap_err().contains("INDEX/COUNT"));
        let slurm = env(&[(SLURM_INDEX, "2"), (SLURM_COUNT, "3")]);
        assert_eq!(Shard::from_env(slurm).unwrap(), Shard::new(2, 3).unwrap());
        let k8s = env(&[(K8S_INDEX, "0"), (COUNT_VAR, "5")]);
        assert_eq!(Shard::from_env(k8s).unwrap(), Shard::new(0, 5).unwrap());
        let half = env(&[(K8S_INDEX, "0")]);
        assert!(Shard::from_env(half).unwrap_err().contains(COUNT_VAR));
        assert!(Shard::from_env(env(&[])).unwrap_err().contains("neither"));
    }

    /// Every case belongs to exactly one shard; the shards are of similar size; a case's shard
    /// depends on nothing but its identity.
    #[test]
    fn cases_partition() {
        let n = 4;
        let shards: Vec<Shard> = (0..n).map(|i| Shard::new(i, n).unwrap()).collect();
        let mut sizes = vec![0; n as usize];
        for c in 0..4000 {
            let name = format!("case.{c}");
            let owners: Vec<usize> = (0..n as usize)
                .filter(|&i| shards[i].owns_case("cases/x.yaml", &name))
                .collect();
            assert_eq!(owners.len(), 1, "{name}");
            sizes[owners[0]] += 1;
        }
        assert!(sizes.iter().all(|&s| (800..1200).contains(&s)), "{sizes:?}");
        let programs: Vec<u64> = (0..3).map(|k| shards[1].program(k)).collect();
        assert_eq!(programs, vec![1, 5, 9]);
    }

    /// Costly cases are spread evenly (hashing 10 of them could give a shard 5), every case still
    /// has exactly one owner, and a cheap case's owner is the one hashing gives it.
    #[test]
    fn costly_cases_are_dealt_evenly() {
        let n = 4;
        let names: Vec<String> = (0..410).map(|c| format!("case.{c}")).collect();
        let all: Vec<(&str, &str, bool)> = names
            .iter()
            .enumerate()
            .map(|(c, name)| ("cases/x.yaml", name.as_str(), c % 41 == 0))
            .collect();
        let owned: Vec<Vec<bool>> = (0..n)
            .map(|i| Shard::new(i, n).unwrap().owns_cases(all.iter().copied()))
            .collect();
        for (c, &(file, name, costly)) in all.iter().enumerate() {
            let owners: Vec<u64> = (0..n).filter(|&i| owned[i as usize][c]).collect();
            assert_eq!(owners.len(), 1, "{name}");
            if !costly {
                assert!(Shard::new(owners[0], n).unwrap().owns_case(file, name));
            }
        }
        let costly_per_shard: Vec<usize> = owned
            .iter()
            .map(|o| (0..all.len()).filter(|&c| o[c] && all[c].2).count())
            .collect();
        assert_eq!(costly_per_shard.iter().sum::<usize>(), 10);
        assert!(
            costly_per_shard.iter().all(|&k| (2..=3).contains(&k)),
            "{costly_per_shard:?}"
        );
        assert!(Shard::ALL
            .owns_cases(all.iter().copied())
            .iter()
            .all(|&o| o));
    }
}
