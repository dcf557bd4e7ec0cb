//! "Did you mean" suggestions, shared by the schema parser, the yaml loader and the macro.

/// The candidate closest to `word` (case-insensitive edit distance), if it is close enough
/// to be a likely misspelling: at most 2 edits, or a quarter of the word's length.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let word = word.to_lowercase();
    candidates
        .map(|c| (edit_distance(&word, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= 2.max(word.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance between `a` and `b`, counted in characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let del = prev.get(j + 1).map_or(usize::MAX, |d| d + 1);
            let sub = prev
                .get(j)
                .map_or(usize::MAX, |d| d + usize::from(ca != *cb));
            let ins = cur.get(j).map_or(usize::MAX, |d| d + 1);
            cur.push(sub.min(del).min(ins));
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("tensr", "tensor"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            closest("dispach", ["dispatch", "variants"].into_iter()),
            Some("dispatch")
        );
        assert_eq!(closest("Cpu", ["CPU", "CUDA"].into_iter()), Some("CPU"));
        assert_eq!(closest("zzzzzz", ["CPU", "CUDA"].into_iter()), None);
    }
}
