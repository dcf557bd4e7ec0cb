//! R84–R89 on the functions of a loaded file: every function `opgen check` accepts has a
//! Rust API (typed free function, method, kernel signature).
//!
//! torchgen derives C++ signatures only while it generates code, so these rules are not part
//! of loading ([`load_native_functions`](super::load_native_functions) accepts a file that
//! breaks them, as torchgen's parser does); [`check_rust_api`] runs them on a loaded file,
//! and [`NativeFunction::check_rust_api`] on one function.

use crate::schema::{Rule, SchemaError, layout};
use crate::validate::check_rust_mapping;

use super::entry::{EntryError, NativeFunction, Site};
use super::keys::Field;
use super::source::{LoadError, SourceFile};
use super::{NativeFunctions, fn_load_error};

impl NativeFunction {
    /// The R84–R89 problems of this function, as the Rust API (torchgen's C++ API) meets
    /// them: [`check_rust_mapping`] with the entry's `method` variant, except that the
    /// defaults of arguments listed in `cpp_no_default_args` are never read (the API drops
    /// them, so they break no R86), plus one more R84 case: a method's `self` must be a
    /// plain `Tensor` (it becomes the receiver). Ranges are byte ranges in the `func` value
    /// as written (after its `ns::` prefix, if any).
    ///
    /// ```
    /// use opgen_core::native::load_native_functions;
    /// use opgen_core::schema::Rule;
    /// let yaml = "- func: foo(Tensor self, int[] dims=1) -> Tensor\n  cpp_no_default_args: ['dims']\n\
    ///             - func: bar(Tensor other) -> Tensor\n  variants: method\n";
    /// let nf = load_native_functions(yaml, "").unwrap();
    /// assert!(nf.functions()[0].check_rust_api().is_empty());
    /// assert_eq!(nf.functions()[1].check_rust_api()[0].rule, Rule::MethodWithoutSelf);
    /// ```
    pub fn check_rust_api(&self) -> Vec<SchemaError> {
        let offset = self.source.as_ref().map_or(0, |s| s.func_offset);
        let mut errors: Vec<SchemaError> = check_rust_mapping(&self.func, self.variants.method)
            .into_iter()
            .filter(|e| e.rule != Rule::ListDefault || !self.drops_default_at(e.range.start))
            .collect();
        if self.variants.method
            && let Some(i) = self.func.self_index()
            && !self.func.arguments[i].ty.is_plain_tensor()
        {
            let self_ty = &self.func.arguments[i].ty;
            let at = layout(&self.func).arguments[i].ty.clone();
            let e = SchemaError::new(
                Rule::MethodWithoutSelf,
                at,
                format!(
                    "`{}` has a method variant, but its `self` is `{self_ty}`, not a `Tensor`",
                    self.func.name
                ),
            )
            .with_hint("drop `method` from `variants`; a method's receiver is one tensor");
            // R84 comes first, as torchgen meets it before the types.
            errors.insert(0, e);
        }
        for e in &mut errors {
            e.range = e.range.start + offset..e.range.end + offset;
        }
        errors
    }

    /// Whether the default written at byte `at` of the printed schema belongs to an argument
    /// listed in `cpp_no_default_args`.
    fn drops_default_at(&self, at: usize) -> bool {
        let place = layout(&self.func);
        self.func
            .arguments
            .iter()
            .zip(&place.arguments)
            .any(|(a, l)| {
                l.default.as_ref().is_some_and(|d| d.contains(&at))
                    && self.cpp_no_default_args.contains(a.name.as_str())
            })
    }
}

/// R84–R89 on every function of `nf` (written and generated), loaded from `yaml_text` under
/// the name `yaml_name`: the errors located in the file, entries in file order, then the
/// generated functions. An error of a
/// generated function is reported at the entry it was generated from and names it.
///
/// ```
/// use opgen_core::native::{check_rust_api, load_native_functions};
/// let yaml = "- func: foo(Tensor self, bool[] mask) -> Tensor\n";
/// let nf = load_native_functions(yaml, "").unwrap();
/// let errors = check_rust_api(&nf, "native_functions.yaml", yaml);
/// assert_eq!(
///     errors[0].to_string(),
///     "native_functions.yaml:1:26: error[R85]: `bool[]` in argument `mask` is a `bool` list without a fixed size"
/// );
/// ```
pub fn check_rust_api(nf: &NativeFunctions, yaml_name: &str, yaml_text: &str) -> Vec<LoadError> {
    let file = SourceFile::new(yaml_name, yaml_text);
    let mut errors = Vec::new();
    for f in nf.functions() {
        for mut e in f.check_rust_api() {
            if f.is_generated {
                e.message = format!("generated `{}`: {}", f.func.name, e.message);
            }
            let error = EntryError::new(Site::Value(Field::Func), e);
            errors.push(fn_load_error(&file, f, error));
        }
    }
    errors
}
