//! Building the Python module of a dispatcher: its functions (in submodules by
//! `python_module`), the tensor class's methods and dunders, `ops`, `return_types`, the value
//! objects, `tensor()`, `tracing()` and the stubs.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

use opgen_core::dispatch::{Dispatcher, OperatorHandle};
use opgen_core::schema::Schema;
use opgen_python_core::stubs::named_fields;
use opgen_python_core::{Binding, Bindings, DUNDERS, OpInfo, Plan, PySignature, SignatureOptions};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyModule, PyType};

use crate::call::{BindingCallee, DunderCallee, FnCallee, Route, Target};
use crate::ffi::{Kind, new_callable};
use crate::ops::{OpNamespace, OpPacket, Ops};
use crate::returns::Shape;
use crate::tensor::{PyTensor, TensorObject};
use crate::values::{add_values, set_package};

/// How [`bind`] builds the module.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The package name objects and submodules are registered under (`opgen_example`); by
    /// default the module's `__name__` without a trailing `._C`.
    pub package: Option<String>,
    /// `python_module` of operators (`nn`, `linalg`, `fft`, `special`, ...) keyed by
    /// `name.overload` or `ns::name.overload`: the dispatcher does not record it (see
    /// [`python_modules_of`] for a `native_functions.yaml`).
    pub python_modules: HashMap<String, String>,
    /// Leave the tensor class and the autograd members (`no_grad`, `autograd`, ...) alone,
    /// for a second module over another dispatcher.
    pub no_methods: bool,
}

/// The `python_module` of every entry of a loaded `native_functions.yaml`, for
/// [`Options::python_modules`].
pub fn python_modules_of(
    functions: &opgen_core::native::NativeFunctions,
) -> HashMap<String, String> {
    (functions.functions().iter())
        .filter_map(|f| Some((f.func.name.to_string(), f.python_module.clone()?)))
        .collect()
}

/// Fills `module` with the Python binding of every operator of `dispatcher`, for the tensor
/// type `T` (see the crate documentation).
pub fn bind<B: PyTensor>(
    module: &Bound<'_, PyModule>,
    dispatcher: &Dispatcher,
    options: &Options,
) -> PyResult<()> {
    let py = module.py();
    let package = options.package.clone().unwrap_or_else(|| {
        let name = module.name().map(|n| n.to_string()).unwrap_or_default();
        name.strip_suffix("._C").map(str::to_string).unwrap_or(name)
    });
    set_package(&package);
    add_values(module)?;
    module.add_class::<TensorObject>()?;
    module.getattr("Tensor")?.setattr("__module__", &package)?;
    let (handles, ops) = operators(dispatcher, options);
    let bindings = Bindings::new(
        &ops,
        SignatureOptions {
            numbers_as_tensors: B::WRAPS_NUMBERS,
        },
    );
    let mut b = Builder::<B> {
        py,
        module: module.clone(),
        package: package.clone(),
        handles,
        ops,
        return_types: BTreeMap::new(),
        return_types_module: submodule(module, &package, "return_types")?,
        _tensor: PhantomData,
    };
    b.add_functions(&bindings)?;
    if !options.no_methods {
        b.add_methods(&bindings)?;
    }
    b.add_ops(&bindings)?;
    if !options.no_methods {
        crate::autograd::add_autograd::<B>(module, &package)?;
    }
    crate::helpers::add_helpers::<B>(module, &bindings, &b.ops, !options.no_methods)?;
    crate::helpers::add_introspection(module, dispatcher)?;
    Ok(())
}

fn operators(dispatcher: &Dispatcher, options: &Options) -> (Vec<OperatorHandle>, Vec<OpInfo>) {
    let mut handles = Vec::new();
    let mut ops = Vec::new();
    for h in dispatcher.operators() {
        let Some(schema) = h.schema() else { continue };
        let key = schema_key(&schema);
        let qualified = format!("{}::{key}", h.namespace());
        let python_module = (options.python_modules.get(&qualified))
            .or_else(|| options.python_modules.get(&key))
            .cloned();
        ops.push(OpInfo {
            namespace: h.namespace().to_string(),
            schema,
            variants: h.variants(),
            python_module,
            generated: false,
        });
        handles.push(h);
    }
    (handles, ops)
}

/// `name.overload`, without namespace.
fn schema_key(schema: &Schema) -> String {
    match &schema.name.overload {
        Some(o) => format!("{}.{o}", schema.name.name),
        None => schema.name.name.to_string(),
    }
}

/// `parent.<path>` (dotted), made and registered in `sys.modules` as `package.path` if new.
pub(crate) fn submodule<'py>(
    parent: &Bound<'py, PyModule>,
    package: &str,
    path: &str,
) -> PyResult<Bound<'py, PyModule>> {
    let py = parent.py();
    let mut current = parent.clone();
    let mut full = package.to_string();
    for part in path.split('.') {
        full = format!("{full}.{part}");
        current = match current.getattr(part) {
            Ok(existing) => existing.cast_into::<PyModule>()?,
            Err(_) => {
                let m = PyModule::new(py, &full)?;
                current.add(part, &m)?;
                py.import("sys")?.getattr("modules")?.set_item(&full, &m)?;
                m
            }
        };
    }
    Ok(current)
}

struct Builder<'py, B> {
    py: Python<'py>,
    module: Bound<'py, PyModule>,
    package: String,
    handles: Vec<OperatorHandle>,
    ops: Vec<OpInfo>,
    return_types: BTreeMap<String, Py<PyType>>,
    return_types_module: Bound<'py, PyModule>,
    _tensor: PhantomData<B>,
}

impl<'py, B: PyTensor> Builder<'py, B> {
    /// The target calling operator `op` from `sig`; `named`: several named returns come back
    /// as the operator's named tuple.
    fn target(&mut self, op: usize, sig: &PySignature, named: bool) -> PyResult<Target<B>> {
        let schema = self.ops[op].schema.clone();
        let shape = match schema.returns.len() {
            0 => Shape::Nothing,
            1 => Shape::One,
            _ if named && named_fields(sig).is_some() => Shape::Named(self.named_tuple(op)?),
            _ => Shape::Tuple,
        };
        Ok(Target {
            op: self.handles[op].clone(),
            plan: Plan::new(sig, schema),
            shape,
        })
    }

    /// `return_types.<name>`: a named tuple per operator name with named returns (`max`,
    /// `max_out`), as `torch.return_types`.
    fn named_tuple(&mut self, op: usize) -> PyResult<Py<PyType>> {
        let name = opgen_python_core::stubs::return_type_name(&self.ops[op]);
        if let Some(t) = self.return_types.get(&name) {
            return Ok(t.clone_ref(self.py));
        }
        let fields: Vec<String> = (self.ops[op].schema.returns.iter())
            .map(|r| r.name.as_deref().unwrap_or("").to_string())
            .collect();
        let kwargs = PyDict::new(self.py);
        kwargs.set_item("module", format!("{}.return_types", self.package))?;
        let namedtuple = self.py.import("collections")?.getattr("namedtuple")?;
        let ty = namedtuple
            .call((&name, fields), Some(&kwargs))?
            .cast_into::<PyType>()?;
        self.return_types_module.add(name.as_str(), &ty)?;
        self.return_types.insert(name, ty.clone().unbind());
        Ok(ty.unbind())
    }

    fn binding_callee(
        &mut self,
        binding: &Binding,
        method: bool,
        qualname: String,
    ) -> PyResult<BindingCallee<B>> {
        let mut routes = Vec::new();
        for o in &binding.overloads {
            let base = self.target(o.base, &o.signature, true)?;
            let outplace = o
                .outplace
                .map(|i| self.target(i, &o.signature, true))
                .transpose()?;
            routes.push(Route { base, outplace });
        }
        let dunder = binding.name.starts_with("__") && binding.name.ends_with("__");
        let signatures = binding
            .overloads
            .iter()
            .map(|o| o.signature.clone())
            .collect();
        Ok(BindingCallee::new(
            binding.name.clone(),
            qualname,
            method,
            dunder,
            signatures,
            routes,
        ))
    }

    fn add_functions(&mut self, bindings: &Bindings) -> PyResult<()> {
        for (path, functions) in &bindings.functions {
            let target = if path.is_empty() {
                self.module.clone()
            } else {
                submodule(&self.module, &self.package, path)?
            };
            for (name, binding) in functions {
                let callee = self.binding_callee(binding, false, name.clone())?;
                target.add(
                    name.as_str(),
                    new_callable(self.py, Kind::Function, Box::new(callee))?,
                )?;
            }
        }
        Ok(())
    }

    fn add_methods(&mut self, bindings: &Bindings) -> PyResult<()> {
        let class = self.py.get_type::<TensorObject>();
        let mut callees: HashMap<String, Arc<BindingCallee<B>>> = HashMap::new();
        for (name, binding) in &bindings.methods {
            let callee = Arc::new(self.binding_callee(binding, true, format!("Tensor.{name}"))?);
            class.setattr(
                name.as_str(),
                new_callable(self.py, Kind::Method, Box::new(ArcCallee(callee.clone())))?,
            )?;
            callees.insert(name.clone(), callee);
        }
        let functions = bindings.functions.get("");
        for (dunder, target, kind) in DUNDERS {
            use opgen_python_core::DunderKind as K;
            let inner = match kind {
                K::Method | K::Unary => callees.get(target).cloned(),
                K::Reflected | K::Function => match functions.and_then(|f| f.get(target)) {
                    Some(b) => Some(Arc::new(self.binding_callee(
                        b,
                        false,
                        target.to_string(),
                    )?)),
                    None => None,
                },
            };
            let Some(inner) = inner else { continue };
            let callee = DunderCallee {
                name: dunder.to_string(),
                kind,
                inner,
            };
            class.setattr(
                dunder,
                new_callable(self.py, Kind::Method, Box::new(callee))?,
            )?;
        }
        Ok(())
    }

    fn add_ops(&mut self, bindings: &Bindings) -> PyResult<()> {
        let py = self.py;
        let ops = Bound::new(py, Ops)?;
        let mut namespaces: BTreeMap<String, Bound<'py, OpNamespace>> = BTreeMap::new();
        for ((ns, name), packet) in &bindings.packets {
            let namespace = match namespaces.get(ns) {
                Some(n) => n.clone(),
                None => {
                    let n = Bound::new(py, OpNamespace { name: ns.clone() })?;
                    ops.setattr(ns.as_str(), &n)?;
                    namespaces.insert(ns.clone(), n.clone());
                    n
                }
            };
            let qualname = format!("{ns}::{name}");
            let mut signatures = Vec::new();
            let mut routes = Vec::new();
            let mut overload_names = Vec::new();
            for (op, sig) in &packet.overloads {
                signatures.push(sig.clone());
                routes.push(Route {
                    base: self.target(*op, sig, false)?,
                    outplace: None,
                });
                overload_names.push(overload_attr(self.ops[*op].overload()));
            }
            let call = BindingCallee::<B>::new(
                qualname.clone(),
                qualname.clone(),
                false,
                false,
                signatures,
                routes,
            );
            let call = new_callable(py, Kind::Function, Box::new(call))?;
            let packet_obj = Bound::new(
                py,
                OpPacket {
                    qualname: qualname.clone(),
                    overload_names,
                    call,
                },
            )?;
            self.add_overloads(&packet_obj, bindings, ns, name)?;
            namespace.setattr(name.as_str(), packet_obj)?;
        }
        self.module.add("ops", ops)?;
        Ok(())
    }

    /// `ops.<ns>.<name>.<overload>` for every overload of `ns::name`, in registration order.
    fn add_overloads(
        &mut self,
        packet: &Bound<'py, OpPacket>,
        bindings: &Bindings,
        ns: &str,
        name: &str,
    ) -> PyResult<()> {
        for (i, op) in self.ops.clone().iter().enumerate() {
            if op.namespace != ns || op.name() != name {
                continue;
            }
            let attr = overload_attr(op.overload());
            let qualname = format!("{ns}::{name}.{attr}");
            let obj = match &bindings.ops[i] {
                Ok(sig) => {
                    let route = Route {
                        base: self.target(i, sig, false)?,
                        outplace: None,
                    };
                    let callee = BindingCallee::<B>::new(
                        qualname.clone(),
                        qualname,
                        false,
                        false,
                        vec![sig.clone()],
                        vec![route],
                    );
                    new_callable(self.py, Kind::Function, Box::new(callee))?
                }
                Err(reason) => {
                    let message = format!("{qualname}: {reason}");
                    let f = FnCallee {
                        name: "unsupported",
                        doc: "an operator whose arguments Python cannot convert",
                        f: move |_py: Python<'_>,
                                 _: &[&Bound<'_, PyAny>],
                                 _: &[(String, Bound<'_, PyAny>)]|
                              -> PyResult<Py<PyAny>> {
                            Err(pyo3::exceptions::PyNotImplementedError::new_err(
                                message.clone(),
                            ))
                        },
                    };
                    new_callable(self.py, Kind::Function, Box::new(f))?
                }
            };
            packet.setattr(attr.as_str(), obj)?;
        }
        Ok(())
    }
}

/// `ops` attribute of an overload: its name, `default` for none.
fn overload_attr(overload: &str) -> String {
    if overload.is_empty() {
        "default".to_string()
    } else {
        overload.to_string()
    }
}

/// A shared binding as a method (the dunders call the same binding).
struct ArcCallee<B: PyTensor>(Arc<BindingCallee<B>>);

impl<B: PyTensor> crate::ffi::Callee for ArcCallee<B> {
    fn call<'py>(&self, py: Python<'py>, args: crate::ffi::Args<'_, 'py>) -> PyResult<Py<PyAny>> {
        self.0.call(py, args)
    }
    fn name(&self) -> String {
        self.0.name()
    }
    fn qualname(&self) -> String {
        self.0.qualname()
    }
    fn doc(&self) -> String {
        self.0.doc()
    }
    fn repr(&self) -> String {
        self.0.repr()
    }
}
