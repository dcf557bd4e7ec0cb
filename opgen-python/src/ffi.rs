//! The only module with `unsafe`: a callable Python type that CPython calls through its
//! vectorcall protocol, in two flavours, a function and a method descriptor.
//!
//! PyO3 classes are called through `tp_call` (a tuple and a dict built per call) and, set on
//! a class, are bound by `__get__`, which allocates a bound object per method call. PyTorch's
//! own bindings are C functions that CPython calls with the arguments in place, and its
//! methods are method descriptors, which CPython calls with `self` in front of the arguments
//! without binding anything. This type does the same, so a generated function or method costs
//! what PyTorch's do. Everything a call does is safe Rust behind [`Callee`].

use std::ffi::{CStr, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyTuple, PyType};

/// What a callable does when called, and how it names itself.
pub(crate) trait Callee: Send + Sync + 'static {
    /// The call. For a method, `args.args[0]` is the receiver.
    fn call<'py>(&self, py: Python<'py>, args: Args<'_, 'py>) -> PyResult<Py<PyAny>>;
    /// `__name__`.
    fn name(&self) -> String;
    /// `__qualname__`.
    fn qualname(&self) -> String;
    /// `__doc__`: the signatures.
    fn doc(&self) -> String;
    /// `repr()`.
    fn repr(&self) -> String;
}

/// A call's arguments as CPython passes them: positional ones, then the values of the
/// keyword arguments whose names `kwnames` holds.
pub(crate) struct Args<'a, 'py> {
    /// The positional arguments (the receiver first, for a method).
    pub args: &'a [Borrowed<'a, 'py, PyAny>],
    /// The keyword names, if any.
    pub kwnames: Option<Borrowed<'a, 'py, PyTuple>>,
    /// The keyword values, in the order of `kwnames`.
    pub kwvalues: &'a [Borrowed<'a, 'py, PyAny>],
}

/// The object's layout: a Python object header, the vectorcall entry point (CPython finds it
/// through `__vectorcalloffset__`), and the callee behind a thin pointer (null only in an
/// object that was never initialised, which `Py_TPFLAGS_DISALLOW_INSTANTIATION` prevents
/// Python code from making).
#[repr(C)]
struct Object {
    ob_base: ffi::PyObject,
    vectorcall: Option<ffi::vectorcallfunc>,
    callee: *mut Box<dyn Callee>,
}

/// Which of the two types.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A function in a module: called with the arguments as given.
    Function,
    /// A method set on a class: a method descriptor, called with the receiver first.
    Method,
}

unsafe extern "C" {
    // In CPython's stable ABI since 3.2; pyo3-ffi does not declare it.
    fn PyMethod_New(func: *mut ffi::PyObject, self_: *mut ffi::PyObject) -> *mut ffi::PyObject;
}

/// CPython's entry point for a call.
unsafe extern "C" fn vectorcall(
    callable: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargsf: usize,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls a vectorcall function with the GIL held, so attaching is sound.
    let py = unsafe { Python::assume_attached() };
    // SAFETY: CPython reads the entry point of `callable` at the offset only our two types
    // declare, so `callable` is one of our objects, whose layout is `Object`.
    let holder = unsafe { (*callable.cast::<Object>()).callee };
    if holder.is_null() {
        PyTypeError::new_err("this callable was not initialised").restore(py);
        return ptr::null_mut();
    }
    // SAFETY: a non-null `callee` was made by `Box::into_raw` in `new_object` and is freed
    // only in `dealloc`, after the last reference (this call holds one) is gone.
    let callee: &dyn Callee = unsafe { &**holder };
    // SAFETY: `PyVectorcall_NARGS` only masks the flag bit of `nargsf`.
    let nargs = unsafe { ffi::PyVectorcall_NARGS(nargsf) } as usize;
    // SAFETY: a non-null `kwnames` is a tuple of strings (the vectorcall protocol).
    let nkw = if kwnames.is_null() {
        0
    } else {
        (unsafe { ffi::PyTuple_GET_SIZE(kwnames) }) as usize
    };
    let all: &[Borrowed<'_, '_, PyAny>] = if nargs + nkw == 0 {
        &[]
    } else {
        // SAFETY: CPython passes `nargs + len(kwnames)` non-null borrowed references in
        // `args`, alive for the duration of the call. `Borrowed` is `repr(transparent)` over
        // a `NonNull<PyObject>` (its other fields are zero-sized), so the array of pointers
        // is an array of `Borrowed`.
        unsafe { std::slice::from_raw_parts(args.cast::<Borrowed<'_, '_, PyAny>>(), nargs + nkw) }
    };
    let kwnames = (!kwnames.is_null()).then(|| {
        // SAFETY: a non-null `kwnames` is a tuple we borrow for the call.
        unsafe { Borrowed::from_ptr(py, kwnames).cast_unchecked::<PyTuple>() }
    });
    let (args, kwvalues) = all.split_at(nargs);
    let call = Args {
        args,
        kwnames,
        kwvalues,
    };
    match catch_unwind(AssertUnwindSafe(|| callee.call(py, call))) {
        Ok(Ok(result)) => result.into_ptr(),
        Ok(Err(err)) => {
            err.restore(py);
            ptr::null_mut()
        }
        Err(payload) => {
            let msg = (payload.downcast_ref::<String>().cloned())
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic in an opgen-python callable".to_string());
            PanicException::new_err(msg).restore(py);
            ptr::null_mut()
        }
    }
}

/// Frees an object whose reference count reached zero.
unsafe extern "C" fn dealloc(obj: *mut ffi::PyObject) {
    // SAFETY: CPython calls `tp_dealloc` once, with the GIL, on one of our objects.
    unsafe {
        let holder = (*obj.cast::<Object>()).callee;
        if !holder.is_null() {
            drop(Box::from_raw(holder));
        }
        let ty = ffi::Py_TYPE(obj);
        let free = ffi::PyType_GetSlot(ty, ffi::Py_tp_free);
        if free.is_null() {
            ffi::PyObject_Free(obj.cast());
        } else {
            let free: ffi::freefunc = std::mem::transmute::<*mut c_void, ffi::freefunc>(free);
            free(obj.cast());
        }
        // Instances of heap types hold a reference to their type (`PyType_GenericAlloc`).
        ffi::Py_DecRef(ty.cast());
    }
}

/// `Tensor.add` is the method itself; `t.add` (not called) a bound method.
unsafe extern "C" fn descr_get(
    descr: *mut ffi::PyObject,
    obj: *mut ffi::PyObject,
    _ty: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython passes a live descriptor and either NULL or a live instance.
    unsafe {
        if obj.is_null() || obj == ffi::Py_None() {
            ffi::Py_IncRef(descr);
            descr
        } else {
            PyMethod_New(descr, obj)
        }
    }
}

/// Runs `f` on the callee of `obj`, giving a new reference to a string (NULL on error).
unsafe fn text_of(
    obj: *mut ffi::PyObject,
    f: impl FnOnce(&dyn Callee) -> String,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls our getters and `tp_repr` with the GIL on one of our objects.
    let py = unsafe { Python::assume_attached() };
    let holder = unsafe { (*obj.cast::<Object>()).callee };
    let text = if holder.is_null() {
        String::from("<uninitialised>")
    } else {
        // SAFETY: see `vectorcall`.
        f(unsafe { &**holder })
    };
    PyString::new(py, &text).into_ptr()
}

unsafe extern "C" fn get_name(
    obj: *mut ffi::PyObject,
    _closure: *mut c_void,
) -> *mut ffi::PyObject {
    // SAFETY: as `text_of`.
    unsafe { text_of(obj, |c| c.name()) }
}

unsafe extern "C" fn get_qualname(
    obj: *mut ffi::PyObject,
    _closure: *mut c_void,
) -> *mut ffi::PyObject {
    // SAFETY: as `text_of`.
    unsafe { text_of(obj, |c| c.qualname()) }
}

unsafe extern "C" fn get_doc(obj: *mut ffi::PyObject, _closure: *mut c_void) -> *mut ffi::PyObject {
    // SAFETY: as `text_of`.
    unsafe { text_of(obj, |c| c.doc()) }
}

unsafe extern "C" fn repr(obj: *mut ffi::PyObject) -> *mut ffi::PyObject {
    // SAFETY: as `text_of`.
    unsafe { text_of(obj, |c| c.repr()) }
}

/// A type's static description. The arrays must outlive the type, so they are leaked once
/// per type (two types per process).
fn make_type(py: Python<'_>, kind: Kind) -> PyResult<Py<PyType>> {
    let name: &'static CStr = match kind {
        Kind::Function => c"opgen.builtin_function",
        Kind::Method => c"opgen.method_descriptor",
    };
    let members: &'static mut [ffi::PyMemberDef; 2] = Box::leak(Box::new([
        ffi::PyMemberDef {
            name: c"__vectorcalloffset__".as_ptr(),
            type_code: ffi::Py_T_PYSSIZET,
            offset: std::mem::offset_of!(Object, vectorcall) as ffi::Py_ssize_t,
            flags: ffi::Py_READONLY,
            doc: ptr::null(),
        },
        ffi::PyMemberDef::default(),
    ]));
    let getset: &'static mut [ffi::PyGetSetDef; 4] = Box::leak(Box::new([
        getter(c"__name__", get_name),
        getter(c"__qualname__", get_qualname),
        getter(c"__doc__", get_doc),
        ffi::PyGetSetDef::default(),
    ]));
    let mut slots = vec![
        slot(ffi::Py_tp_call, ffi::PyVectorcall_Call as *mut c_void),
        slot(ffi::Py_tp_dealloc, dealloc as *mut c_void),
        slot(ffi::Py_tp_repr, repr as *mut c_void),
        slot(ffi::Py_tp_members, members.as_mut_ptr().cast()),
        slot(ffi::Py_tp_getset, getset.as_mut_ptr().cast()),
    ];
    let mut flags = ffi::Py_TPFLAGS_DEFAULT
        | ffi::Py_TPFLAGS_HAVE_VECTORCALL
        | ffi::Py_TPFLAGS_DISALLOW_INSTANTIATION
        | ffi::Py_TPFLAGS_IMMUTABLETYPE;
    if kind == Kind::Method {
        slots.push(slot(ffi::Py_tp_descr_get, descr_get as *mut c_void));
        flags |= ffi::Py_TPFLAGS_METHOD_DESCRIPTOR;
    }
    slots.push(slot(0, ptr::null_mut()));
    let slots: &'static mut [ffi::PyType_Slot] = Box::leak(slots.into_boxed_slice());
    let spec: &'static mut ffi::PyType_Spec = Box::leak(Box::new(ffi::PyType_Spec {
        name: name.as_ptr(),
        basicsize: std::mem::size_of::<Object>() as c_int,
        itemsize: 0,
        flags: flags as _,
        slots: slots.as_mut_ptr(),
    }));
    // SAFETY: the spec and everything it points to are leaked, so they outlive the type; the
    // slots' functions have the signatures their slot ids require.
    let ty = unsafe { ffi::PyType_FromSpec(spec) };
    // SAFETY: `PyType_FromSpec` returns a new reference to a type, or NULL with an error set.
    let ty = unsafe { Bound::from_owned_ptr_or_err(py, ty)? };
    Ok(ty.cast_into::<PyType>()?.unbind())
}

fn slot(slot: c_int, pfunc: *mut c_void) -> ffi::PyType_Slot {
    ffi::PyType_Slot { slot, pfunc }
}

fn getter(
    name: &'static CStr,
    get: unsafe extern "C" fn(*mut ffi::PyObject, *mut c_void) -> *mut ffi::PyObject,
) -> ffi::PyGetSetDef {
    ffi::PyGetSetDef {
        name: name.as_ptr(),
        get: Some(get),
        set: None,
        doc: ptr::null(),
        closure: ptr::null_mut(),
    }
}

static FUNCTION_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static METHOD_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// A new callable of `kind` running `callee`.
pub(crate) fn new_callable(
    py: Python<'_>,
    kind: Kind,
    callee: Box<dyn Callee>,
) -> PyResult<Py<PyAny>> {
    let cell = match kind {
        Kind::Function => &FUNCTION_TYPE,
        Kind::Method => &METHOD_TYPE,
    };
    let ty = cell.get_or_try_init(py, || make_type(py, kind))?;
    // SAFETY: our types are not variable-size, so `nitems` is 0; `PyType_GenericAlloc`
    // returns a zeroed object of `basicsize` bytes (with its header set and a reference to
    // the type taken) or NULL with an error set.
    let obj = unsafe { ffi::PyType_GenericAlloc(ty.as_ptr().cast(), 0) };
    // SAFETY: as above: a new reference or NULL with an error set.
    let obj = unsafe { Bound::from_owned_ptr_or_err(py, obj)? };
    let raw = obj.as_ptr().cast::<Object>();
    // SAFETY: `raw` is a fresh object of our type, not yet shared: writing its two fields
    // (zeroed so far) is the initialisation. The holder is freed in `dealloc`.
    unsafe {
        (*raw).vectorcall = Some(vectorcall);
        (*raw).callee = Box::into_raw(Box::new(callee));
    }
    Ok(obj.unbind())
}

/// `Py_TYPE(obj)->tp_name`: the name PyTorch's messages print (`int`, `numpy.float64`, a
/// class defined in Python by its bare name).
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    // SAFETY: a live object's type is alive (the object holds a reference to it), and its
    // `tp_name` is a NUL-terminated string owned by the type.
    unsafe {
        let ty = ffi::Py_TYPE(obj.as_ptr());
        CStr::from_ptr((*ty).tp_name).to_string_lossy().into_owned()
    }
}
