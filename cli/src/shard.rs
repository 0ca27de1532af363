//! Shards: a deterministic partition of a run's cases (by a stable hash of each case's identity,
//! so adding a case moves only that case) or of a campaign's programs (program `k` of the
//! campaign is shard `k mod n`'s), for array jobs of Slurm and Kubernetes.

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
        self.is_all()
            || ptxconform_core::hash::fnv1a64(format!("{file}\n{name}").as_bytes()) % self.count
                == self.index
    }

    /// The campaign-wide number of this shard's `k`-th program.
    pub fn program(self, k: u64) -> u64 {
        k * self.count + self.index
    }
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
}
