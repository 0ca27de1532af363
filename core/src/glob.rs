//! The project's one glob matcher (`globset`, the matcher ripgrep uses): known-finding case names
//! and signatures, legality exceptions, case selection. `*` matches any run of characters (`/`
//! included), `?` one, `[…]` a class, `{a,b}` alternatives, `\` escapes.

use globset::{Glob, GlobBuilder, GlobMatcher};
use std::cell::RefCell;
use std::collections::HashMap;

/// A pattern compiled as every caller in the project reads it.
pub fn compile(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
}

thread_local! {
    /// Patterns come from a few files and are matched against many names: compile each once.
    static CACHE: RefCell<HashMap<String, Option<GlobMatcher>>> = RefCell::new(HashMap::new());
}

/// Does `s` match `pattern` as a whole? An invalid pattern matches nothing (the files holding
/// patterns — known findings, legality exceptions — refuse one when they load, with [`check`]).
pub fn glob(pattern: &str, s: &str) -> bool {
    CACHE.with(|c| {
        c.borrow_mut()
            .entry(pattern.to_string())
            .or_insert_with(|| compile(pattern).ok().map(|g| g.compile_matcher()))
            .as_ref()
            .is_some_and(|m| m.is_match(s))
    })
}

/// An error naming `pattern` if it is not a valid glob.
pub fn check(pattern: &str) -> Result<(), String> {
    compile(pattern)
        .map(|_| ())
        .map_err(|e| format!("invalid pattern `{pattern}`: {}", e.kind()))
}

/// `s` with every glob character escaped: a pattern matching exactly `s`.
pub fn escape(s: &str) -> String {
    globset::escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_matches_any_run_and_the_rest_is_literal() {
        assert!(glob("cp.async.bulk*", "cp.async.bulk.prefetch"));
        assert!(glob("*.cta_group::2*", "tcgen05.cp.cta_group::2.128x256b"));
        assert!(!glob("*.cta_group::1*", "tcgen05.cp.cta_group::2.128x256b"));
        assert!(glob("a*b*c", "aXbYc") && !glob("a*b*c", "aXcYb") && !glob("ab*ba", "aba"));
        assert!(glob("exact", "exact") && !glob("exact", "exact2"));
        // Signatures hold `/`: a star crosses it.
        assert!(glob(
            "cp.async/trap_unexpected/*",
            "cp.async/trap_unexpected/trap IllegalInstruction"
        ));
        assert!(glob("{a,b}c", "bc") && glob(r"a\*", "a*") && !glob(r"a\*", "ab"));
        assert!(!glob("[", "[") && check("[").is_err() && check("a*").is_ok());
        assert!(glob(&escape("x[1]*"), "x[1]*"));
    }
}
