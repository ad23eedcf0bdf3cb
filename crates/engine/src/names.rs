//! Choices written by name in scenarios, `--set` and the console (`kernel = "6.18"`,
//! `nic.driver = "ice"`, …): one macro declares such an enum with its names, and one trait lets
//! parsers take any of them.

use alloc::string::String;

/// Declares an enum whose values have fixed names (for scenarios and the console). A value
/// renamed later keeps its old names as aliases (`V6_10 = "6.10" | "6.14"`): they still parse,
/// so permalinks, scenario files and `--set` written with them go on working, but only the
/// name is printed or listed.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $text:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $var),+ }
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var),+];
            /// The name used in scenarios, `--set` and the UI.
            pub const fn name(self) -> &'static str { match self { $($name::$var => $text),+ } }
            /// Parses [`Self::name`] or an old name of the value.
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($text $(| $alias)* => Some($name::$var),)+ _ => None }
            }
            /// The accepted names joined by `|`, for error messages.
            pub fn accepted() -> ::alloc::string::String {
                let mut s = ::alloc::string::String::new();
                for (i, v) in $name::ALL.iter().enumerate() { if i > 0 { s.push_str(" | "); } s.push_str(v.name()); }
                s
            }
        }
        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str(self.name()) }
        }
        impl $crate::names::NamedEnum for $name {
            fn from_name(text: &str) -> Option<Self> { $name::parse(text) }
            fn accepted_names() -> ::alloc::string::String { $name::accepted() }
            fn as_name(self) -> &'static str { self.name() }
        }
    };
}

pub(crate) use named_enum;

/// A choice written by name in scenarios, `--set` and the console.
pub trait NamedEnum: Sized + Copy + 'static {
    /// Parses a name.
    fn from_name(text: &str) -> Option<Self>;
    /// The accepted names, `a | b | c`.
    fn accepted_names() -> String;
    /// This value's name.
    fn as_name(self) -> &'static str;
}
