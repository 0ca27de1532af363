//! A flood of messages cut short: the first few, then how many more there were. Garbage given as
//! a case file or a PTX module can make tens of thousands of errors; a person reads the first.

/// How many messages of one kind a command shows before it counts the rest.
pub const SHOWN: usize = 20;

/// The first `max` of some items and the number left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capped<T> {
    pub shown: Vec<T>,
    pub more: usize,
}

impl<T> Capped<T> {
    pub fn new(items: impl IntoIterator<Item = T>, max: usize) -> Capped<T> {
        let mut shown = Vec::new();
        let mut more = 0;
        for it in items {
            if shown.len() < max {
                shown.push(it);
            } else {
                more += 1;
            }
        }
        Capped { shown, more }
    }

    /// `… and 19,980 more errors` when some were left out (`what` is the plural noun).
    pub fn more_line(&self, what: &str) -> Option<String> {
        (self.more > 0).then(|| more(self.more, what))
    }
}

/// `… and 19,980 more errors`: `n` items of `what` (a plural noun) left out.
pub fn more(n: usize, what: &str) -> String {
    format!("… and {} more {what}", thousands(n))
}

/// `19980` as `19,980`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_and_counts_the_rest() {
        let c = Capped::new(0..20_000, SHOWN);
        assert_eq!(c.shown, (0..20).collect::<Vec<_>>());
        assert_eq!(
            c.more_line("errors").as_deref(),
            Some("… and 19,980 more errors")
        );
        assert_eq!(Capped::new(0..3, SHOWN).more_line("errors"), None);
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
