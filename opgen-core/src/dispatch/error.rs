//! The dispatcher's one error type.
//!
//! [`Error`] is a single pointer (a box around [`ErrorKind`]), so that `Result<T, Error>`
//! stays two words and is returned in registers on the call path.

use std::fmt;
use std::panic::Location;

mod messages;

use super::keys::DispatchKey;
use crate::schema::SchemaError;

/// Where a registration was made.
pub type Site = &'static Location<'static>;

/// Every error of the dispatcher; see [`ErrorKind`] for the cases.
///
/// Kernels that fail return one too: `Error::from("message")`, [`Error::kernel`] for any
/// `std::error::Error`, or `?` on a type with `Into<Error>`. The dispatcher adds the name of
/// the operator whose kernel failed.
pub struct Error(Box<ErrorKind>);

/// What went wrong. Each variant's message is its `Display`.
///
/// # PyTorch's words
///
/// Where PyTorch has a message for the same situation, opgen's starts with PyTorch's words,
/// so that searching PyTorch's text, or a PyTorch test ported with its expected substring,
/// finds it; opgen's own facts follow (registration sites, Rust types and paths, the fix).
///
/// | situation | PyTorch (c10, torchgen) | opgen starts with |
/// |---|---|---|
/// | no kernel for a backend key | `Could not run 'aten::add.Tensor' with arguments from the 'Meta' backend. This could be because the operator doesn't exist for this backend, or was omitted during the selective/custom build process (if using custom build). ... 'aten::add.Tensor' is only available for these backends: [CPU, ...].` | the same first two sentences (the build-process clause left out), then `'aten::add.Tensor' is only available for these keys: [CPU, ...]`, listing the keys with registrations ([`MissingKernel`](ErrorKind::MissingKernel)) |
/// | no kernel for a functionality key | the same sentence, calling the key a backend (`... from the 'AutogradCPU' backend.`) | `Could not run 'aten::add.Tensor' with arguments from the 'AutogradCPU' dispatch key, ...`: opgen calls only backend keys backends |
/// | no kernel for an empty key set | `There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), but no fallback function is registered for schema aten::add.Tensor.  This usually means ...  Available functions are [...]` | the same |
/// | the ambiguous `AutogradOther` entry | `aten::op has kernels registered to both CompositeImplicitAutograd and a backend mapped to AutogradOther. This makes the backend kernel unreachable; ...` | the same first sentence ([`AmbiguousAutogradOther`](ErrorKind::AmbiguousAutogradOther)) |
/// | lookup of an operator without `def` | `Could not find schema for aten::add.Tensr` (and `... but we found an implementation; did you forget to def() the operator?` when kernels exist) | the same (without c10's trailing `.` after an empty overload) ([`OperatorNotFound`](ErrorKind::OperatorNotFound)) |
/// | a second `def` | `Tried to register an operator (aten::add.Tensor(...) -> Tensor) with the same name and overload name multiple times. Each overload's schema should only be registered with a single call to def(). Duplicate registration: registered at ... Original registration: registered at ...` | the same, then both schemas with their difference marked ([`DuplicateDef`](ErrorKind::DuplicateDef)) |
/// | a kernel whose signature does not fit | `Inferred operator schema for a C++ kernel function doesn't match the expected function schema.` then `operator:`, `expected schema:`, `inferred schema:`, `reason:` lines | `Inferred operator schema for a Rust kernel function doesn't match ...` (Rust, not C++), then the same lines with the Rust signatures ([`KernelSignature`](ErrorKind::KernelSignature)) |
/// | a typed handle of the wrong signature | `Tried to access or call an operator with a wrong signature.` then `operator:`, `correct signature:`, `accessed/called as:` lines | the same ([`TypedSignature`](ErrorKind::TypedSignature)) |
/// | a second fallback for a key | `Tried to register multiple backend fallbacks for the same dispatch key AutogradCPU; previous registration ..., new registration ...` | the same ([`DuplicateFallback`](ErrorKind::DuplicateFallback)) |
/// | a second library owning a namespace | `Only a single TORCH_LIBRARY can be used to register the namespace aten; ...` | the same first clause ([`NamespaceTaken`](ErrorKind::NamespaceTaken)) |
/// | a `def` in an impl-only library | `Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  All def()s should be placed in the (unique) TORCH_LIBRARY block for their namespace.` | the same ([`DefInImplLibrary`](ErrorKind::DefInImplLibrary)) |
/// | another library's namespace in a name | `Explicitly provided namespace (other) in schema string does not match namespace of enclosing TORCH_LIBRARY block (aten).` (`in operator name` for a kernel) | the same up to `enclosing`, then `library (aten)` ([`NamespaceMismatch`](ErrorKind::NamespaceMismatch)) |
/// | static dispatch without a kernel | torchgen's `Static dispatch does not support add for Meta.` | `Static dispatch does not support aten::add.Tensor for Meta.` ([`StaticDispatchMissingKernel`](ErrorKind::StaticDispatchMissingKernel)) |
/// | an unknown key name | `could not parse dispatch key: CUDAA` | the same ([`UnknownDispatchKey`](ErrorKind::UnknownDispatchKey)) |
/// | tensors on two devices | `Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!` | the same ([`DeviceMismatch`](ErrorKind::DeviceMismatch)) |
///
/// The other kinds (boxed stacks and values, kernel failures, opgen's own checks) have no
/// PyTorch counterpart. The warning of a kernel overriding another is a [`Warning`](super::Warning),
/// not an error.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A lookup named an operator that has no `def`.
    OperatorNotFound {
        /// The name looked up, with namespace (`aten::add`).
        name: String,
        /// The overload looked up (empty for none).
        overload: String,
        /// The overloads of `name` that do exist (at most 16, then `... (N more)`).
        known_overloads: Vec<String>,
        /// The keys and sites of the kernels registered for the operator without a `def`
        /// (a dangling impl).
        kernels: Vec<(DispatchKey, Site)>,
        /// A defined operator with a similar name (link-time reports only).
        did_you_mean: Option<String>,
        /// The messages of the link-time registrations of this operator that failed (global
        /// dispatcher only; see [`Dispatcher::global_errors`](super::Dispatcher::global_errors)).
        registration_errors: Vec<String>,
    },
    /// The key a call dispatched to has no kernel.
    MissingKernel {
        /// `ns::op.overload`.
        operator: String,
        /// The key, or `None` when the key set was empty.
        key: Option<DispatchKey>,
        /// The keys at which the operator has registrations.
        available: Vec<DispatchKey>,
    },
    /// The call landed on `AutogradOther`, which is ambiguous for this operator (rule 4).
    AmbiguousAutogradOther {
        /// `ns::op.overload`.
        operator: String,
        /// The backends mapped to `AutogradOther` that have kernels.
        backends: Vec<DispatchKey>,
    },
    /// A call in static-dispatch mode found no kernel for its backend key, nor a composite one.
    StaticDispatchMissingKernel {
        /// `ns::op.overload`.
        operator: String,
        /// The highest backend key of the arguments, or `None` when they have none.
        key: Option<DispatchKey>,
        /// The keys of the kernels linked into the program for this operator.
        available: Vec<DispatchKey>,
    },
    /// A `def` whose schema does not parse or breaks a rule.
    InvalidSchema {
        /// The schema as given.
        schema: String,
        /// Every problem found.
        errors: Vec<SchemaError>,
        /// The `def`'s site.
        site: Site,
    },
    /// A second `def` of the same operator and overload.
    DuplicateDef {
        /// `ns::op.overload`.
        operator: String,
        /// The schema already defined.
        first: String,
        /// Where it was defined.
        first_site: Site,
        /// The schema of the rejected `def`.
        second: String,
        /// Where the rejected `def` was made.
        second_site: Site,
    },
    /// A `def` or kernel that names a namespace other than its library's.
    NamespaceMismatch {
        /// The schema (`def`) or operator name (kernel) as given.
        name: String,
        /// The namespace it names.
        written: String,
        /// The library's namespace.
        library: String,
        /// `true` for a `def`'s schema, `false` for a kernel's operator name.
        in_schema: bool,
        /// The registration's site.
        site: Site,
    },
    /// An operator name that is malformed.
    InvalidName {
        /// The name as given.
        name: String,
        /// What is wrong with it, and the fix.
        problem: String,
        /// The registration's site.
        site: Site,
    },
    /// A second library claimed a namespace (only one may own its `def`s).
    NamespaceTaken {
        /// The namespace.
        namespace: String,
        /// Where the owning library was created.
        first_site: Site,
        /// Where the rejected one was created.
        second_site: Site,
    },
    /// A `def` from a library made with [`Dispatcher::impls`](super::Dispatcher::impls).
    DefInImplLibrary {
        /// The library's namespace.
        namespace: String,
        /// The `def`'s site.
        site: Site,
    },
    /// A kernel whose Rust signature does not fit the operator's schema.
    KernelSignature {
        /// `ns::op.overload`.
        operator: String,
        /// The key the kernel was registered at.
        key: DispatchKey,
        /// Where the kernel was registered.
        site: Site,
        /// The kernel's signature.
        found: String,
        /// The signature the schema needs.
        expected: String,
        /// The first difference.
        detail: String,
        /// The schema, with namespace.
        schema: String,
        /// Where the `def` was made.
        def_site: Option<Site>,
    },
    /// A second backend fallback for the same key.
    DuplicateFallback {
        /// The runtime key.
        key: DispatchKey,
        /// Where the existing fallback was registered.
        first_site: Site,
        /// Where the rejected one was.
        second_site: Site,
    },
    /// A typed handle requested with a signature that does not fit the schema.
    TypedSignature {
        /// `ns::op.overload`.
        operator: String,
        /// The signature requested.
        requested: String,
        /// The signature the schema needs.
        expected: String,
        /// The first difference.
        detail: String,
    },
    /// A boxed call whose stack holds fewer values than the operator takes.
    StackTooShort {
        /// `ns::op.overload`.
        operator: String,
        /// How many arguments the schema has.
        expected: usize,
        /// How many values the stack holds.
        found: usize,
    },
    /// A boxed argument of the wrong type.
    WrongArgument {
        /// `ns::op.overload`.
        operator: String,
        /// The argument's position, from 0.
        index: usize,
        /// The argument's name.
        name: String,
        /// The schema type.
        expected: String,
        /// The type of the value found.
        found: &'static str,
    },
    /// A boxed kernel that left the wrong returns on the stack.
    WrongReturn {
        /// `ns::op.overload`.
        operator: String,
        /// What the schema returns.
        expected: String,
        /// What was found.
        found: String,
    },
    /// A call with tensors of one type reached a kernel written for another.
    TensorType {
        /// `ns::op.overload`.
        operator: String,
        /// The kernel's tensor type.
        kernel: &'static str,
        /// The caller's tensor type.
        caller: &'static str,
    },
    /// `fill_defaults` met a missing argument without a default.
    MissingArgument {
        /// `ns::op.overload`.
        operator: String,
        /// The argument's name.
        name: String,
    },
    /// `fill_defaults` met a default it cannot turn into a value.
    UnsupportedDefault {
        /// `ns::op.overload`.
        operator: String,
        /// The argument's name.
        name: String,
        /// The default as written.
        default: String,
    },
    /// A dispatch key name that does not exist.
    UnknownDispatchKey {
        /// The name given.
        name: String,
        /// The key with the same spelling up to case, if any.
        suggestion: Option<&'static str>,
    },
    /// A kernel returned an error.
    Kernel {
        /// `ns::op.overload`, once the dispatcher has added it.
        operator: Option<String>,
        /// The kernel's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A [`Tensor`](super::Tensor) hook the tensor type does not implement (its default
    /// body), called by a feature that needs it.
    Unsupported {
        /// The tensor type's name.
        tensor_type: &'static str,
        /// The hook (`resize_`).
        hook: &'static str,
    },
    /// A structured kernel (or a wrapper derived for a group of operators) found its
    /// arguments or outputs wrong: an out tensor of the wrong dtype or device, an in-place
    /// call whose `self` does not have the output's shape, a meta function that forgot an
    /// output (see [`crate::structured`]).
    Structured {
        /// `ns::op.overload` of the operator called.
        operator: String,
        /// The key of the kernel that found the problem.
        key: DispatchKey,
        /// What was expected and what was found, in PyTorch's words.
        message: String,
    },
    /// A `BackendSelect` kernel (or [`compute_dispatch_key`](super::compute_dispatch_key))
    /// found no backend key for a factory's options.
    NoBackendKey {
        /// `ns::op.overload` of the factory, once known.
        operator: Option<String>,
        /// The `dtype` given.
        dtype: Option<super::ScalarType>,
        /// The layout (strided if none was given).
        layout: super::Layout,
        /// The device (the CPU if none was given).
        device: super::Device,
    },
    /// A kernel at a device-guarded key (`CUDA`, `XPU`, ...) of an operator with
    /// `device_check: ExactSame` (the default) got tensors on different devices.
    DeviceMismatch {
        /// `ns::op.overload`.
        operator: String,
        /// The kernel's name.
        kernel: String,
        /// The key the kernel is registered at.
        key: DispatchKey,
        /// Each checked argument with a tensor, and that tensor's device, in the order
        /// checked (out arguments first, then positional ones).
        devices: Vec<(String, super::Device)>,
    },
    /// Autograd refused an operation or a backward pass, in PyTorch's words
    /// (see [`crate::autograd`]).
    Autograd(crate::autograd::AutogradError),
    /// A bug in opgen.
    Internal {
        /// What went wrong.
        message: String,
    },
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0
    }

    /// The error's kind, by value.
    pub fn into_kind(self) -> ErrorKind {
        *self.0
    }

    /// A kernel error wrapping `source`.
    pub fn kernel(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Error {
        ErrorKind::Kernel {
            operator: None,
            source: source.into(),
        }
        .into()
    }

    pub(crate) fn internal(message: impl Into<String>) -> Error {
        ErrorKind::Internal {
            message: message.into(),
        }
        .into()
    }

    /// Names the operator in an error that has a place for it and does not name one yet.
    #[cold]
    pub(crate) fn for_operator(mut self, op: &str) -> Error {
        if let ErrorKind::NoBackendKey {
            operator: operator @ None,
            ..
        } = &mut *self.0
        {
            *operator = Some(op.to_string());
        }
        self.in_kernel(op)
    }

    /// Names the operator in a kernel error that does not name one yet.
    #[cold]
    pub(crate) fn in_kernel(mut self, op: &str) -> Error {
        if let ErrorKind::Kernel {
            operator: operator @ None,
            ..
        } = &mut *self.0
        {
            *operator = Some(op.to_string());
        }
        self
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error(Box::new(kind))
    }
}

impl From<String> for Error {
    /// A kernel error with this message.
    fn from(message: String) -> Error {
        Error::kernel(message)
    }
}

impl From<&str> for Error {
    /// A kernel error with this message.
    fn from(message: &str) -> Error {
        Error::kernel(message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.0 {
            ErrorKind::Kernel { source, .. } => Some(&**source),
            ErrorKind::Autograd(e) => Some(e),
            _ => None,
        }
    }
}
