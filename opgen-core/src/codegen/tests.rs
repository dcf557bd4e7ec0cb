//! Expansion snapshots (prettyplease), error messages, and the whole corpus.

mod autograd;
mod corpus;
mod errors;
mod hygiene;
mod snapshots;

use proc_macro2::TokenStream as TokenStream2;

/// The expansion, pretty-printed; panics if it is not valid Rust.
pub(super) fn expand(args: TokenStream2, item: TokenStream2) -> String {
    let out = super::native_function(args, item);
    let file: syn::File =
        syn::parse2(out.clone()).unwrap_or_else(|e| panic!("invalid expansion: {e}\n{out}"));
    prettyplease::unparse(&file)
}

/// The error messages of a failing expansion, in order.
pub(super) fn errors(args: TokenStream2, item: TokenStream2) -> Vec<String> {
    let Err(err) = super::run(args, item) else {
        panic!("expected errors")
    };
    err.into_iter().map(|e| e.to_string()).collect()
}

/// The attribute accepts no schema that `Library::def` refuses, and refuses each with the
/// runtime's rule and message (R91/R92 names, R17, R30, ...); a schema `def` accepts gets no
/// schema error (only the kernel's, where it does not fit).
#[test]
fn the_attribute_refuses_every_schema_def_refuses() {
    let cands = [
        "ädd(Tensor self) -> Tensor",
        "add.ö(Tensor self) -> Tensor",
        "add.default(Tensor self) -> Tensor",
        "add.__name__(Tensor self) -> Tensor",
        "add(Tensor self, Tensor self) -> Tensor",
        "add(Tensor sélf) -> Tensor",
        "_(Tensor self) -> Tensor",
        "1add(Tensor self) -> Tensor",
        "add.1(Tensor self) -> Tensor",
        "a-b(Tensor self) -> Tensor",
        "ns::a::b(Tensor self) -> Tensor",
        "add(Tensor self, *, int a, int a) -> Tensor",
        "add(Tensor self) -> (Tensor a, Tensor a)",
        "add(Tensor self, int a) -> (Tensor a, Tensor b)",
        "fn(Tensor self) -> Tensor",
        "self(Tensor self) -> Tensor",
        "add(Tensor self, int fn) -> Tensor",
        "ns::add(Tensor self) -> Tensor",
        "Add(Tensor self) -> Tensor",
        "add.Tensor-x(Tensor self) -> Tensor",
        "add(Tensor self, int[0] x) -> Tensor",
        "ns-x::add(Tensor self) -> Tensor",
        "ñs::add(Tensor self) -> Tensor",
    ];
    for c in cands {
        let args: TokenStream2 = format!("{c:?}, tensor = \"MyTensor\"")
            .parse()
            .expect("tokens");
        let macro_err: Vec<String> = match super::run(
            args,
            quote::quote!(
                fn k(self_: &MyTensor) -> MyTensor {
                    self_.clone()
                }
            ),
        ) {
            Ok(_) => vec![],
            Err(e) => e
                .into_iter()
                .map(|e| e.to_string().lines().next().unwrap_or("").to_string())
                .collect(),
        };
        let d = crate::dispatch::Dispatcher::new();
        let ns = c
            .split_once("::")
            .filter(|(a, _)| !a.contains('('))
            .map_or("aten", |(a, _)| a);
        let lib = d.fragment(ns);
        match lib.def(c) {
            Err(e) => {
                // `error[R91]: message` on the runtime's second line: the macro's first error
                // is `message [R91]`.
                let text = e.to_string();
                let line = text.lines().nth(1).unwrap_or_default();
                let (rule, message) = line
                    .strip_prefix("error[")
                    .and_then(|l| l.split_once("]: "))
                    .unwrap_or_else(|| panic!("`{c}`: a rule in {text}"));
                assert_eq!(
                    macro_err.first().map(String::as_str),
                    Some(format!("{message} [{rule}]").as_str()),
                    "`{c}`"
                );
            }
            Ok(_) => assert!(
                macro_err.iter().all(|e| !e.contains(" [R")),
                "`{c}` is a valid schema, but the attribute reports {macro_err:?}"
            ),
        }
    }
}
