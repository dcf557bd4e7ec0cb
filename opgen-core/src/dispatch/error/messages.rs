//! The message of each error kind.

use std::fmt;

use super::{ErrorKind, Site};
use crate::dispatch::keys::DispatchKey;

fn keys(keys: &[DispatchKey]) -> String {
    keys.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ")
}

fn ticked(items: &[String]) -> String {
    items
        .iter()
        .map(|o| format!("`{o}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::OperatorNotFound {
                name,
                overload,
                known_overloads,
                registration_errors,
            } => {
                let full = if overload.is_empty() {
                    name.clone()
                } else {
                    format!("{name}.{overload}")
                };
                write!(f, "operator `{full}` not found")?;
                match known_overloads.as_slice() {
                    [] => write!(f, "; no library has a `def` for `{name}`")?,
                    known => write!(f, "; `{name}` has the overloads {}", ticked(known))?,
                }
                for error in registration_errors {
                    write!(f, "\n  its link-time registration failed: {error}")?;
                }
                Ok(())
            }
            ErrorKind::StaticDispatchMissingKernel {
                operator,
                key,
                available,
            } => {
                let key = key.map_or("Undefined", DispatchKey::name);
                write!(
                    f,
                    "static dispatch has no kernel for `{operator}` at `{key}`"
                )?;
                match available.as_slice() {
                    [] => write!(f, "; no kernels are linked into the program"),
                    some => write!(f, "; kernels: {}", keys(some)),
                }
            }
            ErrorKind::MissingKernel {
                operator,
                key,
                available,
            } => {
                let key = key.map_or("Undefined", DispatchKey::name);
                write!(
                    f,
                    "could not run `{operator}` with arguments from the `{key}` backend"
                )?;
                match available.as_slice() {
                    [] => write!(f, "; the operator has no kernels"),
                    some => write!(f, "; the operator has kernels for: {}", keys(some)),
                }
            }
            ErrorKind::AmbiguousAutogradOther { operator, backends } => write!(
                f,
                "`{operator}` has kernels for both `CompositeImplicitAutograd` and a backend mapped to \
                 `AutogradOther` ({}), so which one serves `AutogradOther` is ambiguous; register a \
                 kernel at `AutogradOther` (or `Autograd`) for it",
                keys(backends)
            ),
            ErrorKind::InvalidSchema {
                schema,
                errors,
                site,
            } => {
                write!(f, "invalid schema in `def` at {site}")?;
                // Bounded as every renderer is: so many errors, then how many more.
                let (shown, more) = crate::schema::shown_errors(errors, |_| ());
                for e in shown {
                    write!(f, "\n{}", e.render(schema).trim_end())?;
                }
                if more > 0 {
                    write!(f, "\n{}", crate::schema::more_errors(more))?;
                }
                Ok(())
            }
            ErrorKind::DuplicateDef {
                operator,
                first,
                first_site,
                second,
                second_site,
            } => {
                write!(
                    f,
                    "operator `{operator}` is defined twice, with the same name and overload name; \
                     remove one `def` or give it another overload name"
                )?;
                write_schema_diff(f, first, first_site, second, second_site)
            }
            ErrorKind::InvalidName {
                name,
                problem,
                site,
            } => {
                // `name` is the schema as given, of any length.
                let name = crate::schema::bounded_text(name);
                write!(f, "invalid operator name `{name}` at {site}: {problem}")
            }
            ErrorKind::NamespaceTaken {
                namespace,
                first_site,
                second_site,
            } => write!(
                f,
                "namespace `{namespace}` already has a library, created at {first_site}; only one library \
                 may own a namespace's `def`s, so the one at {second_site} is rejected; use \
                 `Dispatcher::fragment` to add to it"
            ),
            ErrorKind::DefInImplLibrary { namespace, site } => write!(
                f,
                "`def` at {site} in an impl-only library for `{namespace}`; use `Dispatcher::library` or \
                 `Dispatcher::fragment` to define operators"
            ),
            ErrorKind::KernelSignature {
                operator,
                key,
                site,
                found,
                expected,
                detail,
                schema,
            } => write!(
                f,
                "kernel for `{operator}` at `{key}` ({site}) takes `{found}` but the schema needs \
                 `{expected}`; {detail}\n  schema: {schema}"
            ),
            ErrorKind::DuplicateFallback {
                key,
                first_site,
                second_site,
            } => write!(
                f,
                "a fallback for `{key}` is already registered at {first_site}; the one at {second_site} is \
                 rejected; drop the first registration before adding another"
            ),
            ErrorKind::TypedSignature {
                operator,
                requested,
                expected,
                detail,
            } => write!(
                f,
                "`{operator}` cannot be called as `{requested}`: its schema needs `{expected}`; {detail}"
            ),
            ErrorKind::StackTooShort {
                operator,
                expected,
                found,
            } => write!(
                f,
                "the stack holds {found} value{} but `{operator}` takes {expected} argument{}; push every \
                 argument (`OperatorHandle::fill_defaults` pushes the defaults)",
                if *found == 1 { "" } else { "s" },
                if *expected == 1 { "" } else { "s" },
            ),
            ErrorKind::WrongArgument {
                operator,
                index,
                name,
                expected,
                found,
            } => write!(
                f,
                "argument {} (`{name}`) of `{operator}` should be `{expected}` but the stack holds `{found}`",
                index + 1
            ),
            ErrorKind::WrongReturn {
                operator,
                expected,
                found,
            } => write!(
                f,
                "a kernel of `{operator}` left {found} on the stack but the schema returns `{expected}`"
            ),
            ErrorKind::TensorType {
                operator,
                kernel,
                caller,
            } => write!(
                f,
                "`{operator}` was called with tensors of type `{caller}` but its kernel takes `{kernel}`; \
                 register a kernel for `{caller}`"
            ),
            ErrorKind::MissingArgument { operator, name } => write!(
                f,
                "argument `{name}` of `{operator}` is missing from the stack and has no default; push it"
            ),
            ErrorKind::UnsupportedDefault {
                operator,
                name,
                default,
            } => write!(
                f,
                "default `{default}` of argument `{name}` of `{operator}` has no value; push the argument"
            ),
            ErrorKind::UnknownDispatchKey { name, suggestion } => match suggestion {
                Some(s) => write!(f, "unknown dispatch key `{name}`; did you mean `{s}`?"),
                None => write!(
                    f,
                    "unknown dispatch key `{name}`; expected a PyTorch key name such as `CPU`, `CUDA`, \
                     `AutogradCPU` or `CompositeImplicitAutograd`"
                ),
            },
            ErrorKind::Kernel {
                operator: Some(op),
                source,
            } => write!(f, "kernel for `{op}` failed: {source}"),
            ErrorKind::Kernel {
                operator: None,
                source,
            } => write!(f, "kernel failed: {source}"),
            ErrorKind::Autograd(e) => fmt::Display::fmt(e, f),
            ErrorKind::Unsupported { tensor_type, hook } => write!(
                f,
                "tensor type `{tensor_type}` does not implement `Tensor::{hook}`, which this call needs; \
                 implement the hook in its `impl Tensor`"
            ),
            ErrorKind::Structured {
                operator,
                key,
                message,
            } => write!(f, "{message} (`{operator}` at `{key}`)"),
            ErrorKind::NoBackendKey {
                operator,
                dtype,
                layout,
                device,
            } => {
                if let Some(op) = operator {
                    write!(f, "BackendSelect of `{op}` found no backend key")?;
                } else {
                    f.write_str("no backend key")?;
                }
                let dtype = dtype.unwrap_or(crate::dispatch::ScalarType::Float);
                write!(
                    f,
                    " for layout `{layout}` on device `{device}` (dtype `{dtype}`); expected the \
                     strided or jagged layout, a sparse or compressed sparse layout on a device \
                     other than fpga, vulkan and metal, or `Mkldnn` on cpu"
                )
            }
            ErrorKind::DeviceMismatch {
                operator,
                kernel,
                key,
                devices,
            } => {
                let first = devices.first().map(|(_, d)| *d);
                let other = devices.iter().map(|(_, d)| *d).find(|d| Some(*d) != first);
                let (a, b) = (
                    first.map_or_else(String::new, |d| d.to_string()),
                    other.map_or_else(String::new, |d| d.to_string()),
                );
                let each: Vec<String> = (devices.iter())
                    .map(|(name, d)| format!("`{name}` on {d}"))
                    .collect();
                write!(
                    f,
                    "expected all tensors to be on the same device, but found at least two \
                     devices, {a} and {b} (kernel `{kernel}` of `{operator}` at `{key}`: {}); \
                     move them to one device, or declare the operator with \
                     `device_check = \"NoCheck\"`",
                    each.join(", ")
                )
            }
            ErrorKind::Internal { message } => {
                write!(f, "opgen internal error: {message}; please report it")
            }
        }
    }
}

/// Both schemas, aligned, with `^` under the part where they differ, and both sites.
fn write_schema_diff(
    f: &mut fmt::Formatter<'_>,
    first: &str,
    s1: Site,
    second: &str,
    s2: Site,
) -> fmt::Result {
    let a: Vec<char> = first.chars().collect();
    let b: Vec<char> = second.chars().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    for (label, text, len, site) in [
        ("first: ", first, a.len(), s1),
        ("second:", second, b.len(), s2),
    ] {
        write!(f, "\n  {label} {text}")?;
        if a != b {
            let width = (len - suffix - prefix).max(1);
            write!(
                f,
                "\n          {}{} differs",
                " ".repeat(prefix),
                "^".repeat(width)
            )?;
        }
        write!(f, "\n          at {site}")?;
    }
    if a == b {
        write!(f, "\n  (the schemas are identical)")?;
    }
    Ok(())
}
