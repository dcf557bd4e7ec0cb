//! What formulas on attributes are translated against: ATen's operators (PyTorch's
//! `native_functions.yaml`, vendored), whose generated API the formulas call, and PyTorch's
//! node names (`AddBackward1` is `add.Scalar`'s: torchgen numbers them across
//! `derivatives.yaml`). Loaded once per compilation.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::formula::translate::ApiIndex;
use crate::native::derivatives::{load_derivatives, match_functions, node_name};
use crate::native::load_native_functions_with_names;

const NATIVE_FUNCTIONS: &str = include_str!("../../../tests/data/native_functions.yaml");
const TAGS: &str = include_str!("../../../tests/data/tags.yaml");
const DERIVATIVES: &str = include_str!("../../../tests/data/derivatives.yaml");

/// ATen's API and PyTorch's node names.
pub(crate) struct Corpus {
    /// The operators formulas may call.
    pub api: ApiIndex,
    /// The node name of each schema served by an entry of PyTorch's `derivatives.yaml`.
    pub nodes: HashMap<String, String>,
}

/// The corpus, loaded on first use (`None` if the vendored files fail to load: then no
/// formula translates, and the errors say so).
pub(crate) fn corpus() -> Option<&'static Corpus> {
    static CORPUS: OnceLock<Option<Corpus>> = OnceLock::new();
    CORPUS.get_or_init(load).as_ref()
}

fn load() -> Option<Corpus> {
    let natives = load_native_functions_with_names(
        "native_functions.yaml",
        NATIVE_FUNCTIONS,
        "tags.yaml",
        TAGS,
    )
    .ok()?;
    let api = ApiIndex::new(&natives);
    let mut nodes = HashMap::new();
    if let Ok(d) = load_derivatives("derivatives.yaml", DERIVATIVES, &natives) {
        for m in match_functions(&d, &natives) {
            let Some(info) = m.entry.default_info() else {
                continue;
            };
            if let Some(node) = node_name(info, m.kind) {
                let schema = natives.functions()[m.function].func.to_string();
                nodes.insert(schema, node);
            }
        }
    }
    Some(Corpus { api, nodes })
}

#[cfg(test)]
mod tests {
    #[test]
    fn pytorchs_node_names() {
        let c = super::corpus().expect("the corpus loads");
        let node = |s: &str| c.nodes.get(s).map(String::as_str);
        assert_eq!(
            node("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"),
            Some("AddBackward1")
        );
        assert_eq!(
            node("mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"),
            Some("MulBackward0")
        );
        assert!(c.api.contains("threshold_backward"));
    }
}
