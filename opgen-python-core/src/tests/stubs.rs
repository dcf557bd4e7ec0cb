//! The stubs of the whole corpus.

use super::corpus;
use crate::stubs::{StubOptions, stub_files};

#[test]
fn stubs_have_every_function_with_overloads() {
    let c = corpus();
    let files = stub_files(
        &c.bindings,
        &c.ops,
        &StubOptions {
            tensor_members: vec![],
            module_members: vec![],
            dunders: vec![],
        },
    );
    let top = &files.iter().find(|(p, _)| p == "__init__.pyi").unwrap().1;
    std::fs::write(std::env::temp_dir().join("opgen_stub_top.pyi"), top).unwrap();
    assert!(top.contains(
        "def add(input: Union[Tensor, Number, _complex], other: Union[Tensor, Number, _complex], *, \
         alpha: Union[Number, _complex] = 1, out: Optional[Tensor] = None) -> Tensor: ..."
    ), "{}", &top[..2000]);
    assert!(top.contains("@overload\ndef max(input: Tensor, dim: _int, keepdim: _bool = False, *, out: Optional[Union[tuple[Tensor, ...], list[Tensor]]] = None) -> return_types.max: ..."));
    assert!(top.contains("    def view(self, *size: Union[_int, SymInt]) -> Tensor: ..."));
    let linalg = &files.iter().find(|(p, _)| p == "linalg.pyi").unwrap().1;
    assert!(
        linalg.contains("def det(A: Tensor, *, out: Optional[Tensor] = None) -> Tensor: ..."),
        "{linalg}"
    );
    assert!(files.iter().any(|(p, _)| p == "nn/functional.pyi"));
    assert!(files.iter().any(|(p, _)| p == "nn/__init__.pyi"));
    let rt = &files
        .iter()
        .find(|(p, _)| p == "return_types.pyi")
        .unwrap()
        .1;
    assert!(
        rt.contains("class max(NamedTuple):\n    values: Tensor\n    indices: Tensor\n"),
        "{rt}"
    );
}
