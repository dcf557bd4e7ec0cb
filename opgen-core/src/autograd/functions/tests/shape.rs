//! Derivatives of shape operators, indexing and pooling.

use super::*;

fn t(shape: &[i64], values: &[f64]) -> TT {
    TT::new(shape, values.to_vec())
}

fn vals(x: Result<TT, Error>) -> Vec<f64> {
    x.expect("helper").values()
}

fn range(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64).collect()
}

#[test]
fn cat_and_stack_backward_split_the_gradient() {
    setup();
    let g = TT::vec(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    let parts = cat_tensors_backward(
        Some(&g),
        &[vec![2], vec![0], vec![3]],
        &[ScalarType::Double; 3],
        0,
    )
    .expect("cat");
    let values: Vec<Vec<f64>> = parts
        .iter()
        .map(|p| p.as_ref().expect("part").values())
        .collect();
    assert_eq!(values, [vec![1.0, 2.0], vec![], vec![3.0, 4.0, 5.0]]);
    let g = TT::new(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    let rows = stack_tensors_backward(Some(&g), 0, &[ScalarType::Double; 2]).expect("stack");
    assert_eq!(rows[1].as_ref().expect("row").values(), [3.0, 4.0]);
    let cols = stack_tensors_backward(Some(&g), -1, &[ScalarType::Double; 2]).expect("stack");
    assert_eq!(cols[0].as_ref().expect("col").values(), [1.0, 3.0]);
    assert!(
        cat_tensors_backward::<TT>(None, &[vec![1]], &[ScalarType::Double], 0).expect("none")[0]
            .is_none()
    );
}

#[test]
fn block_diag_backward_takes_the_diagonal_blocks() {
    setup();
    // block_diag(A [2x2], v [3], s []) is [4, 6]: A at (0, 0), v at row 2, s at (3, 5). As in
    // PyTorch, the 1-D input gets its row as a [1, 3] gradient (`squeeze(-1)` of a [1, 3]
    // slice does nothing); the engine sums it to the input's shape.
    let g = t(&[4, 6], &range(24));
    let sizes = [vec![2, 2], vec![3], vec![]];
    let parts =
        block_diag_backward(Some(&g), &sizes, &[ScalarType::Double; 3]).expect("block_diag");
    let got: Vec<(Vec<i64>, Vec<f64>)> = parts
        .iter()
        .map(|p| {
            let p = p.as_ref().expect("part");
            (p.shape().to_vec(), p.values())
        })
        .collect();
    assert_eq!(
        got,
        [
            (vec![2, 2], vec![0.0, 1.0, 6.0, 7.0]),
            (vec![1, 3], vec![14.0, 15.0, 16.0]),
            (vec![], vec![23.0]),
        ]
    );
}

#[test]
fn split_and_unbind_backward_fill_missing_gradients_with_zeros() {
    setup();
    let o = TT::new(&[1], vec![0.0]).options().expect("options");
    let grads = [
        Some(t(&[2, 2], &[1.0, 2.0, 3.0, 4.0])),
        None,
        Some(t(&[1, 2], &[5.0, 6.0])),
    ];
    let g = split_with_sizes_backward(&grads, &[2, 2, 1], 0, &[5, 2], o);
    assert_eq!(vals(g), [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 5.0, 6.0]);
    // split(2) of 5 rows: pieces of 2, 2 and 1.
    let g = split_backward(&grads, 2, 0, &[5, 2], o);
    assert_eq!(vals(g), [1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 5.0, 6.0]);
    let g = unbind_backward(&[None, Some(TT::vec(&[1.0, 2.0]))], 1).expect("unbind");
    assert_eq!(
        (g.shape(), g.values()),
        (&[2i64, 2][..], vec![0.0, 1.0, 0.0, 2.0])
    );
}

#[test]
fn squeeze_permute_and_repeat_backward() {
    setup();
    assert_eq!(
        unsqueeze_to(&TT::vec(&[1.0, 2.0]), &[1, 2, 1])
            .expect("to")
            .shape(),
        [1, 2, 1]
    );
    let squeezed = TT::new(&[1, 2], vec![1.0, 2.0]);
    assert_eq!(
        unsqueeze_to_dims(&squeezed, &[2], &[1, 2, 1])
            .expect("dims")
            .shape(),
        [1, 2, 1]
    );
    assert_eq!(
        unsqueeze_to_dim(&TT::vec(&[1.0, 2.0]), 0, &[1, 2])
            .expect("dim")
            .shape(),
        [1, 2]
    );
    // permute([2, 0, 1]) of [a, b, c] is [c, a, b]; its derivative permutes back.
    let g = t(&[4, 2, 3], &range(24));
    let back = permute_backwards(&g, &[2, 0, 1]).expect("permute");
    assert_eq!(back.shape(), [2, 3, 4]);
    assert_eq!(back.values()[..4], [0.0, 6.0, 12.0, 18.0]);
    // repeat([2, 3]) of a [2] input is [2, 6]: x[j] is at every column c with c % 2 == j.
    let g = t(&[2, 6], &range(12));
    let expected: Vec<f64> = (0..2)
        .map(|j| (0..12).filter(|k| (k % 6) % 2 == j).map(|k| k as f64).sum())
        .collect();
    assert_eq!(vals(repeat_backward(&g, &[2, 3], &[2])), expected);
    assert_eq!(vals(repeat_backward(&g, &[0, 3], &[2])), [0.0, 0.0]);
}

#[test]
fn slice_pad_and_copy_backward() {
    setup();
    let g = TT::vec(&[1.0, 2.0, 3.0]);
    assert_eq!(
        vals(slice_backward_wrapper(&g, &[5], 0, None, None, 2)),
        [1.0, 0.0, 2.0, 0.0, 3.0]
    );
    assert_eq!(
        vals(slice_backward_wrapper(&g, &[5], 0, Some(1), Some(4), 1)),
        [0.0, 1.0, 2.0, 3.0, 0.0]
    );
    assert_eq!(
        vals(constant_pad_nd_backward(&TT::vec(&range(6)), &[1, 2])),
        [1.0, 2.0, 3.0]
    );
    let o = g.options().expect("options");
    assert!(_to_copy_backward(&g, o).expect("to_copy").same(&g));
    assert_eq!(reverse_list(&[1, 2, 3]).expect("reverse"), [3, 2, 1]);
}

#[test]
fn as_strided_backward_is_layout_agnostic() {
    setup();
    let geometry = |sizes: &[i64], strides: &[i64]| TensorGeometry {
        sizes: sizes.to_vec(),
        strides: strides.to_vec(),
        storage_offset: 0,
    };
    // x of size 3, y = x.as_strided([3, 3], [1, 0]) ("expand"): each x[i] is read 3 times.
    let g = as_strided_backward(
        &t(&[3, 3], &[1.0; 9]),
        &geometry(&[3], &[1]),
        &[3, 3],
        &[1, 0],
        None,
    );
    assert_eq!(vals(g), [3.0, 3.0, 3.0]);
    // x.as_strided([3, 2], [3, 6]): y[2, 0] and y[0, 1] are both storage 6.
    let g = as_strided_backward(
        &t(&[3, 2], &[1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0]),
        &geometry(&[15], &[1]),
        &[3, 2],
        &[3, 6],
        None,
    );
    let mut expected = vec![0.0; 15];
    for (v, p) in [
        (1.0, 0),
        (10.0, 6),
        (100.0, 3),
        (1000.0, 9),
        (10000.0, 6),
        (100000.0, 12),
    ] {
        expected[p] += v;
    }
    assert_eq!(vals(g), expected);
    // An input that overlaps itself (x = t.expand(3, 3), strides [0, 1]): y = x.as_strided([1],
    // [1]) reads storage 0, which x visits 3 times: each visit gets a third.
    let g = as_strided_backward(
        &TT::vec(&[1.0]),
        &geometry(&[3, 3], &[0, 1]),
        &[1],
        &[1],
        None,
    );
    let g = g.expect("overlap");
    assert_eq!(g.shape(), [3, 3]);
    assert_close(
        &g.values(),
        &[
            1.0 / 3.0,
            0.0,
            0.0,
            1.0 / 3.0,
            0.0,
            0.0,
            1.0 / 3.0,
            0.0,
            0.0,
        ],
    );
    // A zero-size output: zeros of the input's shape.
    assert_eq!(
        vals(as_strided_backward(
            &t(&[0], &[]),
            &geometry(&[2], &[1]),
            &[0],
            &[1],
            None
        )),
        [0.0, 0.0]
    );
    let window = as_strided_scatter_backward(
        &t(&[2, 2], &[1.0, 2.0, 3.0, 4.0]),
        &geometry(&[2, 2], &[2, 1]),
        &geometry(&[2], &[1]),
        &[2],
        &[2],
        Some(1),
    );
    assert_eq!(vals(window), [0.0, 2.0, 0.0, 4.0]);
}

#[test]
fn pooling_and_indexing_backward() {
    setup();
    // A [1, 1, 2, 2] input pooled to [1, 1, 1, 2] with flat indices into the 4 positions.
    let grad = t(&[1, 1, 2, 2], &[10.0, 20.0, 30.0, 40.0]);
    let indices = t(&[1, 1, 1, 2], &[3.0, 0.0]);
    let g = max_pool_double_backward(&grad, &indices, 2).expect("pool");
    assert_eq!(
        (g.shape(), g.values()),
        (&[1i64, 1, 1, 2][..], vec![40.0, 10.0])
    );
    let err = error_for_max_pool2d_double_backward::<TT>()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("max_pool2d with `return_indices=False` is not infinitely differentiable."),
        "{err}"
    );
    // index with repeated indices accumulates.
    let zeros = t(&[3, 2], &[0.0; 6]);
    let g = index_backward(
        &zeros,
        &[Some(TT::vec(&[2.0, 0.0, 2.0]))],
        &t(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
    );
    assert_eq!(vals(g), [3.0, 4.0, 0.0, 0.0, 6.0, 8.0]);
    let g = take_backward(
        &TT::vec(&[1.0, 2.0, 3.0]),
        &t(&[2, 2], &[0.0; 4]),
        &TT::vec(&[3.0, 0.0, 3.0]),
    );
    assert_eq!(vals(g), [2.0, 0.0, 0.0, 4.0]);
    let g = embedding_dense_double_backward_symint(
        &t(&[3, 2], &range(6)),
        &t(&[2, 2], &[2.0, 1.0, 1.0, 0.0]),
        1,
    );
    let g = g.expect("embedding");
    assert_eq!(
        (g.shape(), g.values()),
        (
            &[2i64, 2, 2][..],
            vec![4.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
        )
    );
    let bias =
        convolution_backward_jvp_grad_bias(&t(&[2, 3, 2], &range(12)), Some(&TT::vec(&[0.0; 3])));
    assert_eq!(
        bias.expect("bias").expect("defined").values(),
        [14.0, 22.0, 30.0]
    );
}

#[test]
fn scatter_and_index_reductions_backward() {
    setup();
    let (self_, index) = (TT::vec(&[1.0, 2.0, 3.0]), TT::vec(&[0.0, 0.0, 2.0]));
    let (src, grad) = (TT::vec(&[4.0, 0.0, 5.0]), TT::vec(&[1.0, 1.0, 1.0]));
    let sum = TT::vec(&[5.0, 2.0, 8.0]);
    let (gs, gsrc) =
        scatter_reduce_backward(Some(&grad), &self_, 0, &index, &src, "sum", true, &sum)
            .expect("sum");
    assert_eq!(
        (gs.expect("self").values(), gsrc.expect("src").values()),
        (vec![1.0; 3], vec![1.0; 3])
    );
    // prod: result [0, 2, 15]; src[1] is the only zero in its group.
    let prod = TT::vec(&[0.0, 2.0, 15.0]);
    let (gs, gsrc) =
        scatter_reduce_backward(Some(&grad), &self_, 0, &index, &src, "prod", true, &prod)
            .expect("prod");
    assert_eq!(
        (gs.expect("self").values(), gsrc.expect("src").values()),
        (vec![0.0, 1.0, 5.0], vec![0.0, 4.0, 3.0])
    );
    // mean over the self values and the sources: counts [3, 1, 2].
    let mean = TT::vec(&[5.0 / 3.0, 2.0, 4.0]);
    let (gs, gsrc) =
        scatter_reduce_backward(Some(&grad), &self_, 0, &index, &src, "mean", true, &mean)
            .expect("mean");
    assert_close(&gs.expect("self").values(), &[1.0 / 3.0, 1.0, 0.5]);
    assert_close(&gsrc.expect("src").values(), &[1.0 / 3.0, 1.0 / 3.0, 0.5]);
    // amax with a tie between self[0] = 4 and src[0] = 4, excluding self elsewhere.
    let (self2, amax) = (TT::vec(&[4.0, 2.0, 3.0]), TT::vec(&[4.0, 2.0, 5.0]));
    let (gs, gsrc) =
        scatter_reduce_backward(Some(&grad), &self2, 0, &index, &src, "amax", true, &amax)
            .expect("amax");
    assert_close(&gs.expect("self").values(), &[0.5, 1.0, 0.0]);
    assert_close(&gsrc.expect("src").values(), &[0.5, 0.0, 1.0]);
    let (gs, _) = scatter_reduce_backward(Some(&grad), &self_, 0, &index, &src, "sum", false, &sum)
        .expect("exclude");
    assert_eq!(gs.expect("self").values(), [0.0, 1.0, 0.0]);
    let err = scatter_reduce_backward(Some(&grad), &self_, 0, &index, &src, "max", true, &sum)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got max."
        ),
        "{err}"
    );
    let (gs, gsrc) =
        index_reduce_backward(Some(&grad), &self_, 0, &index, &src, "prod", true, &prod)
            .expect("index prod");
    assert_eq!(
        (gs.expect("self").values(), gsrc.expect("src").values()),
        (vec![0.0, 1.0, 5.0], vec![0.0, 4.0, 3.0])
    );
    let jvp = scatter_reduce_jvp(
        &self_,
        &grad,
        0,
        &index,
        &src,
        &TT::vec(&[2.0; 3]),
        "sum",
        true,
        &sum,
    )
    .expect("jvp");
    assert_eq!(jvp.expect("defined").values(), [5.0, 1.0, 3.0]);
    assert!(
        scatter_reduce_jvp(&self_, &grad, 0, &index, &src, &grad, "prod", true, &prod)
            .expect("prod")
            .is_none()
    );
}
