//! A kernel for an operator defined in another module, registered by name.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

mod ops {
    use opgen::prelude::*;
    use opgen_ui_tests::MyTensor;

    #[native_function("twice(Tensor self) -> Tensor", dispatch = "CPU")]
    pub fn twice_cpu(self_: &MyTensor) -> MyTensor {
        self_.clone()
    }
}

mod meta {
    use opgen::prelude::*;
    use opgen_ui_tests::MyTensor;

    #[native_function(op = "aten::twice", dispatch = "Meta")]
    pub fn twice_meta(_self: &MyTensor) -> MyTensor {
        MyTensor(DispatchKey::Meta.into())
    }
}

fn main() {
    let meta = MyTensor(DispatchKey::Meta.into());
    assert_eq!(ops::twice(&meta).0, meta.0);
    assert_eq!(ops::twice(&MyTensor::cpu()).0, MyTensor::cpu().0);
    let _ = meta::twice_meta;
}
