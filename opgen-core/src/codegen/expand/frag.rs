//! Token sequences made once per expansion and copied where they recur, and small writers
//! that push tokens straight into the stream being built.
//!
//! With proc_macro2's fallback (the in-process tests and benchmark), the expansion's cost is
//! mostly allocation: every `quote!` is a new stream that grows by reallocation, every
//! interpolated `TokenStream` is copied through a temporary vector, and every identifier of a
//! `quote!` template is validated and allocated. A [`Frag`] is a plain vector of trees,
//! copied into the output tree by tree (an identifier is one allocation, a punctuation none,
//! a group one reference count), and a delimited group made once (an attribute such as
//! `#[inline]`, a parameter list) is shared by every item that repeats it. The tokens are the
//! same as `quote!` writes: same trees, spacing and spans.

use proc_macro2::{
    Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream as TokenStream2, TokenTree,
};
use quote::{ToTokens, TokenStreamExt};

/// A token sequence, copied tree by tree where it is interpolated.
#[derive(Clone, Default)]
pub(crate) struct Frag(Vec<TokenTree>);

impl Frag {
    pub fn new(tokens: TokenStream2) -> Frag {
        Frag(tokens.into_iter().collect())
    }

    /// `#[content]`: one attribute, its bracket group shared by every copy.
    pub fn attr(content: TokenStream2) -> Frag {
        Frag(vec![
            TokenTree::Punct(Punct::new('#', Spacing::Alone)),
            TokenTree::Group(Group::new(Delimiter::Bracket, content)),
        ])
    }

    /// A single group, shared by every copy.
    pub fn group(delimiter: Delimiter, content: TokenStream2) -> Frag {
        Frag(vec![TokenTree::Group(Group::new(delimiter, content))])
    }
}

impl ToTokens for Frag {
    fn to_tokens(&self, tokens: &mut TokenStream2) {
        tokens.extend(self.0.iter().cloned());
    }
}

/// `ch`, alone.
pub(crate) fn punct(out: &mut TokenStream2, ch: char) {
    out.append(Punct::new(ch, Spacing::Alone));
}

/// `::`, as `quote!` writes it.
pub(crate) fn colon2(out: &mut TokenStream2) {
    out.append(Punct::new(':', Spacing::Joint));
    out.append(Punct::new(':', Spacing::Alone));
}

/// An identifier at the call site.
pub(crate) fn ident(out: &mut TokenStream2, name: &str) {
    out.append(Ident::new(name, Span::call_site()));
}

/// `::a::b::c`.
pub(crate) fn root_path(out: &mut TokenStream2, segments: &[&str]) {
    for s in segments {
        colon2(out);
        ident(out, s);
    }
}

/// `'name`, as `quote!` writes a lifetime.
pub(crate) fn lifetime(out: &mut TokenStream2, name: &str) {
    out.append(Punct::new('\'', Spacing::Joint));
    ident(out, name);
}

/// A group of `delimiter` around what `f` writes.
pub(crate) fn group(
    out: &mut TokenStream2,
    delimiter: Delimiter,
    f: impl FnOnce(&mut TokenStream2),
) {
    let mut inner = TokenStream2::new();
    f(&mut inner);
    out.append(Group::new(delimiter, inner));
}

/// `ch`, joined to the next punctuation (`-` of `->`).
pub(crate) fn punct_joint(out: &mut TokenStream2, ch: char) {
    out.append(Punct::new(ch, Spacing::Joint));
}

/// `rt::a::b`: a path of the runtime crate (`rt` is `::opgen` or the user's `crate = `).
pub(crate) fn rt_path(out: &mut TokenStream2, rt: &Frag, segments: &[&str]) {
    rt.to_tokens(out);
    root_path(out, segments);
}

/// `#[doc(hidden)]`.
pub(crate) fn doc_hidden(out: &mut TokenStream2) {
    punct(out, '#');
    group(out, Delimiter::Bracket, |g| {
        ident(g, "doc");
        group(g, Delimiter::Parenthesis, |g| ident(g, "hidden"));
    });
}

/// `#[rt::__private::linkme::distributed_slice(rt::__private::SLICE)]
/// #[linkme(crate = rt::__private::linkme)]`: an item of one of the link-time lists.
pub(crate) fn linkme_attrs(out: &mut TokenStream2, rt: &Frag, slice: &str) {
    punct(out, '#');
    group(out, Delimiter::Bracket, |g| {
        rt_path(g, rt, &["__private", "linkme", "distributed_slice"]);
        group(g, Delimiter::Parenthesis, |g| {
            rt_path(g, rt, &["__private", slice]);
        });
    });
    punct(out, '#');
    group(out, Delimiter::Bracket, |g| {
        ident(g, "linkme");
        group(g, Delimiter::Parenthesis, |g| {
            ident(g, "crate");
            punct(g, '=');
            rt_path(g, rt, &["__private", "linkme"]);
        });
    });
}

/// Tokens at one span, as `quote_spanned!` writes them.
#[derive(Clone, Copy)]
pub(crate) struct At(pub Span);

impl At {
    pub fn punct(self, out: &mut TokenStream2, ch: char, spacing: Spacing) {
        let mut p = Punct::new(ch, spacing);
        p.set_span(self.0);
        out.append(p);
    }

    pub fn colon2(self, out: &mut TokenStream2) {
        self.punct(out, ':', Spacing::Joint);
        self.punct(out, ':', Spacing::Alone);
    }

    pub fn ident(self, out: &mut TokenStream2, name: &str) {
        out.append(Ident::new(name, self.0));
    }

    /// `::a::b`.
    pub fn root_path(self, out: &mut TokenStream2, segments: &[&str]) {
        for s in segments {
            self.colon2(out);
            self.ident(out, s);
        }
    }

    pub fn group(
        self,
        out: &mut TokenStream2,
        delimiter: Delimiter,
        f: impl FnOnce(&mut TokenStream2),
    ) {
        let mut inner = TokenStream2::new();
        f(&mut inner);
        let mut g = Group::new(delimiter, inner);
        g.set_span(self.0);
        out.append(g);
    }

    /// `::core::name!()`: `file!()`, `line!()`.
    pub fn core_macro(self, out: &mut TokenStream2, name: &str) {
        self.root_path(out, &["core", name]);
        self.punct(out, '!', Spacing::Alone);
        self.group(out, Delimiter::Parenthesis, |_| {});
    }
}
