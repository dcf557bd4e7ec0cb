//! The closed vocabularies of an entry: field names, ufunc keys, dtypes. The dispatch keys
//! are the runtime's [`DispatchKey`]s, restricted to [`DispatchKey::YAML_KEYS`].

use std::fmt;

use crate::dispatch::DispatchKey;

macro_rules! names {
    ($(#[$doc:meta])* $ty:ident { $($(#[$vdoc:meta])* $variant:ident = $name:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $ty {
            $($(#[$vdoc])* $variant,)*
        }

        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant,)*];

            /// The name as written in `native_functions.yaml`.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name,)* }
            }

            /// The value written `name` (case-sensitive), if any.
            pub fn from_name(name: &str) -> Option<$ty> {
                match name { $($name => Some($ty::$variant),)* _ => None }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

names! {
    /// The fields an entry may have (SCHEMA.md §3.5, R37).
    Field {
        /// `func`: the schema, with an optional `ns::` prefix.
        Func = "func",
        /// `variants`: `function`, `method` or both.
        Variants = "variants",
        /// `dispatch`: kernels per dispatch key.
        Dispatch = "dispatch",
        /// `structured: True` on a structured out variant.
        Structured = "structured",
        /// `structured_delegate`: the structured out variant this entry delegates to.
        StructuredDelegate = "structured_delegate",
        /// `structured_inherits`: the meta struct's base class.
        StructuredInherits = "structured_inherits",
        /// `precomputed`: values computed by `meta` and handed to `impl`.
        Precomputed = "precomputed",
        /// `autogen`: variants torchgen generates for this entry.
        Autogen = "autogen",
        /// `tags`: tags declared in `tags.yaml`.
        Tags = "tags",
        /// `device_guard`: whether wrappers install a device guard.
        DeviceGuard = "device_guard",
        /// `device_check`: whether wrappers check that tensors share a device.
        DeviceCheck = "device_check",
        /// `python_module`: the Python namespace of the binding.
        PythonModule = "python_module",
        /// `category_override`: metadata for the Python and tracing layers.
        CategoryOverride = "category_override",
        /// `manual_kernel_registration`: kernels are registered by hand.
        ManualKernelRegistration = "manual_kernel_registration",
        /// `manual_cpp_binding`: the C++ API function is written by hand.
        ManualCppBinding = "manual_cpp_binding",
        /// `cpp_no_default_args`: arguments whose defaults the C++ API drops.
        CppNoDefaultArgs = "cpp_no_default_args",
        /// `use_const_ref_for_mutable_tensors`: written tensors passed by const reference.
        UseConstRefForMutableTensors = "use_const_ref_for_mutable_tensors",
        /// `ufunc_inner_loop`: scalar inner loops for generated CPU/CUDA kernels.
        UfuncInnerLoop = "ufunc_inner_loop",
    }
}

// torchgen's `DispatchKey` enum knows many more keys than an entry may use; naming one of
// those gets "not a supported dispatch key" instead of "unknown dispatch key" (both R48).
const OTHER_KEYS: &[&str] = &[
    "Undefined",
    "CatchAll",
    "FPGA",
    "MAIA",
    "Vulkan",
    "Metal",
    "MKLDNN",
    "OpenGL",
    "OpenCL",
    "IDEEP",
    "CustomRNGKeyId",
    "Sparse",
    "SparseCsr",
    "NestedTensor",
    "Dense",
    "Quantized",
    "PythonTLSSnapshot",
    "PreDispatch",
    "PythonDispatcher",
    "Python",
    "FuncTorchDynamicLayerBackMode",
    "Conjugate",
    "Negative",
    "BackendSelect",
    "Named",
    "AutogradOther",
    "AutogradFunctionality",
    "AutogradNestedTensor",
    "Tracer",
    "Autocast",
    "AutocastCPU",
    "AutocastCUDA",
    "AutocastXPU",
    "AutocastMPS",
    "Batched",
    "VmapMode",
    "FuncTorchGradWrapper",
    "FuncTorchBatched",
    "BatchedNestedTensor",
    "FuncTorchVmapMode",
    "FuncTorchDynamicLayerFrontMode",
    "Functionalize",
    "TESTING_ONLY_GenericWrapper",
    "TESTING_ONLY_GenericMode",
    "ADInplaceOrView",
    "Autograd",
    "FuncTorchBatchedDecomposition",
    "Lazy",
];
const BACKENDS: &[&str] = &[
    "CPU",
    "CUDA",
    "HIP",
    "XLA",
    "MTIA",
    "MPS",
    "IPU",
    "XPU",
    "HPU",
    "VE",
    "Lazy",
    "Meta",
    "PrivateUse1",
    "PrivateUse2",
    "PrivateUse3",
];
const FUNCTIONALITIES: &[&str] = &[
    "",
    "Quantized",
    "Sparse",
    "SparseCsr",
    "NestedTensor",
    "Autograd",
];

/// Whether torchgen knows `name` as a dispatch key at all (supported or not).
pub(crate) fn is_known_dispatch_key(name: &str) -> bool {
    DispatchKey::from_yaml_name(name).is_some()
        || OTHER_KEYS.contains(&name)
        || FUNCTIONALITIES.iter().any(|f| {
            name.strip_prefix(f)
                .is_some_and(|backend| BACKENDS.contains(&backend))
        })
}

names! {
    /// The keys of a `ufunc_inner_loop` mapping (R57).
    UfuncKey {
        /// `CUDAFunctor`.
        CudaFunctor = "CUDAFunctor",
        /// `CUDAFunctorOnOther`.
        CudaFunctorOnOther = "CUDAFunctorOnOther",
        /// `CUDAFunctorOnSelf`.
        CudaFunctorOnSelf = "CUDAFunctorOnSelf",
        /// `CPUScalar`.
        CpuScalar = "CPUScalar",
        /// `CPUVector`.
        CpuVector = "CPUVector",
        /// `ScalarOnly`.
        ScalarOnly = "ScalarOnly",
        /// `Generic`: what a plain string value means.
        Generic = "Generic",
    }
}

names! {
    /// The scalar types a ufunc inner loop may support (R58).
    ScalarType {
        /// `Byte` (uint8).
        Byte = "Byte",
        /// `Char` (int8).
        Char = "Char",
        /// `Short` (int16).
        Short = "Short",
        /// `Int` (int32).
        Int = "Int",
        /// `Long` (int64).
        Long = "Long",
        /// `Half` (float16).
        Half = "Half",
        /// `Float` (float32).
        Float = "Float",
        /// `Double` (float64).
        Double = "Double",
        /// `ComplexHalf`.
        ComplexHalf = "ComplexHalf",
        /// `ComplexFloat`.
        ComplexFloat = "ComplexFloat",
        /// `ComplexDouble`.
        ComplexDouble = "ComplexDouble",
        /// `Bool`.
        Bool = "Bool",
        /// `BFloat16`.
        BFloat16 = "BFloat16",
        /// `Float8_e5m2`.
        Float8E5m2 = "Float8_e5m2",
        /// `Float8_e4m3fn`.
        Float8E4m3fn = "Float8_e4m3fn",
        /// `Float8_e5m2fnuz`.
        Float8E5m2fnuz = "Float8_e5m2fnuz",
        /// `Float8_e4m3fnuz`.
        Float8E4m3fnuz = "Float8_e4m3fnuz",
        /// `Float8_e8m0fnu`.
        Float8E8m0fnu = "Float8_e8m0fnu",
    }
}

impl ScalarType {
    /// The scalar types a dtype class stands for (`Integral`, `Floating`, `Complex`, `All`,
    /// `AllAndComplex`, `FloatingAndComplex`), if `name` is one.
    pub fn class(name: &str) -> Option<&'static [ScalarType]> {
        use ScalarType::*;
        Some(match name {
            "Integral" => &[Byte, Char, Int, Long, Short],
            "Floating" => &[Double, Float],
            "Complex" => &[ComplexDouble, ComplexFloat],
            "All" => &[Byte, Char, Int, Long, Short, Double, Float],
            "AllAndComplex" => &[
                Byte,
                Char,
                Int,
                Long,
                Short,
                Double,
                Float,
                ComplexDouble,
                ComplexFloat,
            ],
            "FloatingAndComplex" => &[Double, Float, ComplexDouble, ComplexFloat],
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_keys_round_trip_and_classify() {
        assert_eq!(DispatchKey::YAML_KEYS.len(), 30);
        for k in DispatchKey::YAML_KEYS {
            assert_eq!(DispatchKey::from_yaml_name(k.name()), Some(*k));
            assert!(k.is_yaml_dispatch_key());
        }
        let runtime_only = DispatchKey::ALL
            .iter()
            .filter(|k| !k.is_yaml_dispatch_key());
        for k in runtime_only {
            assert_eq!(DispatchKey::from_yaml_name(k.name()), None, "{k}");
        }
        assert_eq!(DispatchKey::from_yaml_name("CatchAll"), None);
        assert!(is_known_dispatch_key("CatchAll"));
        assert!(is_known_dispatch_key("AutogradCPU"));
        assert!(is_known_dispatch_key("QuantizedXLA"));
        assert!(!is_known_dispatch_key("Cpu"));
        assert_eq!(
            crate::schema::suggest::closest("Cpu", DispatchKey::YAML_KEYS.iter().map(|k| k.name())),
            Some("CPU")
        );
    }
}
