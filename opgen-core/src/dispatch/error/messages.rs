//! The message of each error kind. Where PyTorch (c10, torchgen) has a message for the same
//! situation, the message starts with PyTorch's words, so that a search for PyTorch's text,
//! or a ported test that matches on it, finds it; opgen's own facts (sites, Rust types,
//! the fix) follow. The docs of [`ErrorKind`](super::ErrorKind) list the correspondence, and
//! a test checks every message.

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
                kernels,
                did_you_mean,
                registration_errors,
            } => write_not_found(
                f,
                (name, overload),
                known_overloads,
                kernels,
                did_you_mean.as_deref(),
                registration_errors,
            ),
            ErrorKind::StaticDispatchMissingKernel {
                operator,
                key,
                available,
            } => {
                let key = key.map_or("Undefined", DispatchKey::name);
                write!(f, "Static dispatch does not support {operator} for {key}.")?;
                match available.as_slice() {
                    [] => write!(f, " No kernels of `{operator}` are linked into the program"),
                    some => write!(
                        f,
                        " The kernels linked into the program serve: [{}]; link one for `{key}`",
                        keys(some)
                    ),
                }
            }
            ErrorKind::MissingKernel {
                operator,
                key,
                available,
            } => write_missing_kernel(f, operator, *key, available),
            ErrorKind::AmbiguousAutogradOther { operator, backends } => write!(
                f,
                "{operator} has kernels registered to both CompositeImplicitAutograd and a backend \
                 mapped to AutogradOther. Which one serves `AutogradOther` is ambiguous (backends \
                 with kernels: {}); register a kernel at `AutogradOther` (or `Autograd`) for it",
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
                operator: _,
                first,
                first_site,
                second,
                second_site,
            } => {
                write!(
                    f,
                    "Tried to register an operator ({second}) with the same name and overload name \
                     multiple times. Each overload's schema should only be registered with a \
                     single call to def(). Duplicate registration: registered at {second_site}. \
                     Original registration: registered at {first_site}. Remove one `def`, or give \
                     one another overload name"
                )?;
                write_schema_diff(f, first, first_site, second, second_site)
            }
            ErrorKind::NamespaceMismatch {
                name,
                written,
                library,
                in_schema,
                site,
            } => {
                let (what, verb) = if *in_schema {
                    ("schema string", "def")
                } else {
                    ("operator name", "kernel")
                };
                write!(
                    f,
                    "Explicitly provided namespace ({written}) in {what} does not match namespace \
                     of enclosing library ({library}). The {verb} of `{name}` at {site} belongs to \
                     `{written}`; register it from a library for `{written}`"
                )
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
                "Only a single TORCH_LIBRARY can be used to register the namespace {namespace} (in \
                 opgen, a library made with `Dispatcher::library`). Previous registration of \
                 TORCH_LIBRARY was registered at {first_site}; latest registration was registered \
                 at {second_site}. Use `Dispatcher::fragment` to add definitions to the namespace \
                 from elsewhere, or `Dispatcher::impls` to add kernels"
            ),
            ErrorKind::DefInImplLibrary { namespace, site } => write!(
                f,
                "Cannot define an operator inside of a TORCH_LIBRARY_IMPL block. All def()s should \
                 be placed in the (unique) TORCH_LIBRARY block for their namespace. The `def` at \
                 {site} is in a library for `{namespace}` made with `Dispatcher::impls`, which adds \
                 kernels only; use `Dispatcher::library` or `Dispatcher::fragment` to define \
                 operators"
            ),
            ErrorKind::KernelSignature {
                operator,
                key,
                site,
                found,
                expected,
                detail,
                schema,
                def_site,
            } => {
                writeln!(
                    f,
                    "Inferred operator schema for a Rust kernel function doesn't match the \
                     expected function schema."
                )?;
                writeln!(f, "  operator: {operator}")?;
                writeln!(f, "  expected schema: {schema}")?;
                if let Some(def_site) = def_site {
                    writeln!(f, "    registered at {def_site}")?;
                }
                writeln!(f, "  expected signature: {expected}")?;
                writeln!(f, "  kernel signature: {found}")?;
                writeln!(f, "    dispatch key: {key}")?;
                writeln!(f, "    registered at {site}")?;
                write!(f, "  reason: {detail}")
            }
            ErrorKind::DuplicateFallback {
                key,
                first_site,
                second_site,
            } => write!(
                f,
                "Tried to register multiple backend fallbacks for the same dispatch key {key}; \
                 previous registration registered at {first_site}, new registration registered \
                 at {second_site}. Drop the first registration before adding another"
            ),
            ErrorKind::TypedSignature {
                operator,
                requested,
                expected,
                detail,
            } => write!(
                f,
                "Tried to access or call an operator with a wrong signature.\n  operator: \
                 {operator}\n  correct signature:  {expected}\n  accessed/called as: {requested}\n  \
                 reason: {detail}\nThis likely happened in a call to `OperatorHandle::typed` or \
                 `Dispatcher::typed`; make its type parameters the Rust types of the schema"
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
                Some(s) => write!(
                    f,
                    "could not parse dispatch key: {name}; did you mean `{s}`?"
                ),
                None => write!(
                    f,
                    "could not parse dispatch key: {name}; expected a PyTorch key name such as \
                     `CPU`, `CUDA`, `AutogradCPU` or `CompositeImplicitAutograd`"
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
            } => write_device_mismatch(f, operator, kernel, *key, devices),
            ErrorKind::Internal { message } => {
                write!(f, "opgen internal error: {message}; please report it")
            }
        }
    }
}

/// c10's `findSchemaOrThrow` message, then what opgen knows: the overloads the name has,
/// the kernels registered without a `def`, a similar name, the failed link-time
/// registrations.
fn write_not_found(
    f: &mut fmt::Formatter<'_>,
    (name, overload): (&str, &str),
    known_overloads: &[String],
    kernels: &[(DispatchKey, Site)],
    did_you_mean: Option<&str>,
    registration_errors: &[String],
) -> fmt::Result {
    // c10 prints `name.overload`, and `name.` for an empty overload: opgen leaves the dot
    // out, which would read as the end of the sentence.
    match overload {
        "" => write!(f, "Could not find schema for {name}")?,
        overload => write!(f, "Could not find schema for {name}.{overload}")?,
    }
    if !kernels.is_empty() {
        f.write_str(" but we found an implementation; did you forget to def() the operator?")?;
        let each: Vec<String> = (kernels.iter())
            .map(|(key, site)| format!("`{key}` registered at {site}"))
            .collect();
        write!(f, " Kernels: {}", each.join(", "))?;
    }
    match known_overloads {
        [] if kernels.is_empty() => write!(f, "; no library has a `def` for `{name}`")?,
        [] => {}
        known => write!(f, "; `{name}` has the overloads {}", ticked(known))?,
    }
    if let Some(similar) = did_you_mean {
        write!(f, "; did you mean `{similar}`?")?;
    }
    for error in registration_errors {
        write!(f, "\n  its link-time registration failed: {error}")?;
    }
    Ok(())
}

/// c10's `reportError`: "Could not run ..." for a backend key; the same sentence with
/// "dispatch key" for a functionality key (c10 says "backend" for every key, but a call
/// reaches a functionality key only when neither a kernel nor c10's default fallback serves
/// it, and calling `AutogradCPU` or `Tracer` a backend would mislead); "There were no tensor
/// arguments ..." when the key set is empty.
fn write_missing_kernel(
    f: &mut fmt::Formatter<'_>,
    operator: &str,
    key: Option<DispatchKey>,
    available: &[DispatchKey],
) -> fmt::Result {
    let list = format!("[{}]", keys(available));
    match key {
        None => write!(
            f,
            "There were no tensor arguments to this function (e.g., you passed an empty list of \
             Tensors), but no fallback function is registered for schema {operator}.  This usually \
             means that this function requires a non-empty list of Tensors, or that you (the \
             operator writer) forgot to register a fallback function.  Available functions are \
             {list}; a call without dispatch keys (or whose keys all fall through) is served by a \
             `CompositeExplicitAutograd` or `CompositeImplicitAutograd` kernel"
        ),
        Some(key) if key.is_backend() => {
            write!(
                f,
                "Could not run '{operator}' with arguments from the '{key}' backend. This could be \
                 because the operator doesn't exist for this backend. "
            )?;
            match available {
                [] => write!(f, "'{operator}' has no kernels"),
                _ => write!(
                    f,
                    "'{operator}' is only available for these keys: {list}; register a kernel at \
                     `{key}`, or at a composite key that covers it"
                ),
            }
        }
        Some(key) => {
            write!(
                f,
                "Could not run '{operator}' with arguments from the '{key}' dispatch key, a \
                 functionality key that no kernel or fallback serves. "
            )?;
            match available {
                [] => write!(f, "'{operator}' has no kernels")?,
                _ => write!(f, "'{operator}' is only available for these keys: {list}")?,
            }
            write!(
                f,
                "; register a kernel at `{key}`, or a fallback for it (a fallthrough fallback skips \
                 the key)"
            )
        }
    }
}

fn write_device_mismatch(
    f: &mut fmt::Formatter<'_>,
    operator: &str,
    kernel: &str,
    key: DispatchKey,
    devices: &[(String, crate::dispatch::Device)],
) -> fmt::Result {
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
        "Expected all tensors to be on the same device, but found at least two devices, {a} and \
         {b}! (kernel `{kernel}` of `{operator}` at `{key}`: {}); move them to one device, or \
         declare the operator with `device_check = \"NoCheck\"`",
        each.join(", ")
    )
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
