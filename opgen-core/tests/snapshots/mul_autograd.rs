fn mul_cpu(a: &MyTensor, b: &MyTensor) -> MyTensor {
    a.clone()
}
/// `aten::mul.Tensor(Tensor self, Tensor other) -> Tensor` Panics on error; [`try_mul`] returns it. Kernel `mul_cpu` at `CPU`.
#[inline]
#[track_caller]
#[allow(dead_code)]
fn mul(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    ::opgen::__private::unwrap(try_mul(self_, other))
}
/// [`mul`], returning errors instead of panicking.
#[inline]
#[allow(dead_code)]
fn try_mul(self_: &MyTensor, other: &MyTensor) -> ::opgen::Result<MyTensor> {
    ::opgen::__private::call::<mul, MyTensor, _, _>((self_, other))
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct mul {}
const _: () = {
    ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 2);
    impl ::opgen::dispatch::Operator for mul {
        type Tensor = MyTensor;
        type Args = (&'static MyTensor, &'static MyTensor);
        type Returns = MyTensor;
        type Table = __OPGEN_TABLE;
        const INDEX: usize = 0;
    }
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::def(
                "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
            )
            .with_kernel(
                &[::opgen::DispatchKey::CPU],
                |lib, key, site| lib.impl_of::<mul, _>(key, mul_cpu, site),
            ),
        ::opgen::__private::LinkEntry::kernel(
            "aten::mul.Tensor",
            &[::opgen::DispatchKey::Autograd],
            |lib, key, site| ::opgen::__private::impl_named_of::<
                mul,
                _,
                _,
            >(lib, key, __opgen_autograd, "VariableType::mul_Tensor", site),
        ),
    ];
    #[allow(non_camel_case_types)]
    struct MulBackward0 {
        self_: ::opgen::autograd::SavedVariable<MyTensor>,
        other_scalar_type: ::core::option::Option<::opgen::ScalarType>,
        self_scalar_type: ::core::option::Option<::opgen::ScalarType>,
        other: ::opgen::autograd::SavedVariable<MyTensor>,
    }
    #[automatically_derived]
    impl ::opgen::autograd::Backward<MyTensor> for MulBackward0 {
        fn name(&self) -> &'static str {
            "MulBackward0"
        }
        fn apply(
            &mut self,
            __opgen_ctx: &mut ::opgen::autograd::BackwardContext<'_, MyTensor>,
        ) -> ::opgen::Result<()> {
            if !__opgen_ctx.any_grad_defined() {
                return ::core::result::Result::Ok(());
            }
            let __opgen_node = ::std::sync::Arc::clone(__opgen_ctx.node());
            if __opgen_ctx.needs(1) {
                '__opgen_step: {
                    let grad = match __opgen_ctx.grad(0) {
                        ::core::option::Option::Some(g) => ::core::clone::Clone::clone(g),
                        ::core::option::Option::None => break '__opgen_step,
                    };
                    let self_ = self.self_.get(&__opgen_node)?;
                    let other_scalar_type = ::opgen::__private::autograd::saved(
                        &self.other_scalar_type,
                        &__opgen_node,
                    )?;
                    let __opgen_value = ::opgen::autograd::functions::mul_tensor_backward(
                        &grad,
                        &self_,
                        other_scalar_type,
                    )?;
                    ::opgen::__private::autograd::set_grad(
                        __opgen_ctx,
                        1,
                        __opgen_value,
                    );
                }
            }
            if __opgen_ctx.needs(0) {
                '__opgen_step: {
                    let grad = match __opgen_ctx.grad(0) {
                        ::core::option::Option::Some(g) => ::core::clone::Clone::clone(g),
                        ::core::option::Option::None => break '__opgen_step,
                    };
                    let other = self.other.get(&__opgen_node)?;
                    let self_scalar_type = ::opgen::__private::autograd::saved(
                        &self.self_scalar_type,
                        &__opgen_node,
                    )?;
                    let __opgen_value = ::opgen::autograd::functions::mul_tensor_backward(
                        &grad,
                        &other,
                        self_scalar_type,
                    )?;
                    ::opgen::__private::autograd::set_grad(
                        __opgen_ctx,
                        0,
                        __opgen_value,
                    );
                }
            }
            ::core::result::Result::Ok(())
        }
        fn release_saved(&mut self) {
            self.self_.reset();
            self.other.reset();
        }
    }
    #[allow(clippy::too_many_arguments)]
    fn __opgen_autograd(
        __opgen_ks: ::opgen::DispatchKeySet,
        self_: &MyTensor,
        other: &MyTensor,
    ) -> ::opgen::Result<MyTensor> {
        static __OPGEN_OP: ::opgen::autograd::AutogradOp = ::opgen::autograd::AutogradOp {
            name: "mul",
            output_differentiability: &[],
        };
        ::opgen::autograd::functional(
            __opgen_ks,
            &__OPGEN_OP,
            &[
                ::opgen::autograd::Input::from(self_),
                ::opgen::autograd::Input::from(other),
            ],
            |__opgen_mask: &[bool]| ::core::result::Result::Ok(MulBackward0 {
                self_: ::opgen::__private::autograd::save(__opgen_mask[1], self_),
                other_scalar_type: ::opgen::__private::autograd::save_value(
                    __opgen_mask[1],
                    || ::opgen::autograd::functions::scalar_type(other),
                )?,
                self_scalar_type: ::opgen::__private::autograd::save_value(
                    __opgen_mask[0],
                    || ::opgen::autograd::functions::scalar_type(self_),
                )?,
                other: ::opgen::__private::autograd::save(__opgen_mask[0], other),
            }),
            |__opgen_ks| <mul as ::opgen::dispatch::Operator>::redispatch(
                __opgen_ks,
                (self_, other),
            ),
            |_, _| ::core::result::Result::Ok(()),
        )
    }
    #[automatically_derived]
    impl<'a> ::opgen::__private::formulas::OutFormulas<(&'a MyTensor, &'a MyTensor)>
    for mul {
        #[allow(unused_variables)]
        fn out<__OpgenR>(
            __opgen_ks: ::opgen::DispatchKeySet,
            (self_, other): (&'a MyTensor, &'a MyTensor),
            __opgen_outs: &[::opgen::autograd::Input<'_, MyTensor>],
            __opgen_forward: impl ::core::ops::FnOnce(
                ::opgen::DispatchKeySet,
            ) -> ::opgen::Result<__OpgenR>,
        ) -> ::opgen::Result<__OpgenR> {
            static __OPGEN_OP: ::opgen::autograd::AutogradOp = ::opgen::autograd::AutogradOp {
                name: "mul",
                output_differentiability: &[],
            };
            ::opgen::autograd::out(
                __opgen_ks,
                &__OPGEN_OP,
                &[
                    ::opgen::autograd::Input::from(self_),
                    ::opgen::autograd::Input::from(other),
                ],
                __opgen_outs,
                __opgen_forward,
            )
        }
    }
    #[automatically_derived]
    impl<'a> ::opgen::__private::formulas::InplaceFormulas<(&'a MyTensor, &'a MyTensor)>
    for mul {
        #[allow(unused_variables)]
        fn inplace<__OpgenR>(
            __opgen_ks: ::opgen::DispatchKeySet,
            (self_, other): (&'a MyTensor, &'a MyTensor),
            __opgen_forward: impl ::core::ops::FnOnce(
                ::opgen::DispatchKeySet,
            ) -> ::opgen::Result<__OpgenR>,
        ) -> ::opgen::Result<__OpgenR> {
            static __OPGEN_OP: ::opgen::autograd::AutogradOp = ::opgen::autograd::AutogradOp {
                name: "mul_",
                output_differentiability: &[],
            };
            ::opgen::autograd::inplace(
                __opgen_ks,
                &__OPGEN_OP,
                self_,
                &[
                    ::opgen::autograd::Input::from(self_),
                    ::opgen::autograd::Input::from(other),
                ],
                |__opgen_mask: &[bool]| ::core::result::Result::Ok(MulBackward0 {
                    self_: ::opgen::__private::autograd::save_original(
                        __opgen_mask[1],
                        self_,
                    )?,
                    other_scalar_type: ::opgen::__private::autograd::save_value(
                        __opgen_mask[1],
                        || ::opgen::autograd::functions::scalar_type(other),
                    )?,
                    self_scalar_type: ::opgen::__private::autograd::save_value(
                        __opgen_mask[0],
                        || ::opgen::autograd::functions::scalar_type(self_),
                    )?,
                    other: ::opgen::__private::autograd::save(__opgen_mask[0], other),
                }),
                __opgen_forward,
                |_, _| ::core::result::Result::Ok(()),
            )
        }
    }
};
