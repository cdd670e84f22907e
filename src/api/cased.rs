//! Wire types of the resources the gateway invented (links, payouts, refunds, recipients),
//! defined once for both generations: `cased!` writes the type as v2 spells it (snake_case) and
//! emits its camelCase twin for v1. A handler generic over the generation reads a body with
//! [`Spelled`] and writes an answer with `Generation::cased`, so no field is listed twice.
//! The reference's own shapes (payments, transactions, customers) differ in more than casing
//! and stay hand-written in `v1/` and `v2/`.

use std::marker::PhantomData;

use serde::{Deserialize, Deserializer};

use super::dialect::Generation;
use super::error::Dialect;

/// A wire type with a camelCase twin of the same fields (emitted by `cased!`).
pub trait Cased: Sized {
    /// The same fields, named in camelCase.
    type Camel;
    fn to_camel(self) -> Self::Camel;
    fn from_camel(camel: Self::Camel) -> Self;
}

/// A list answers each element in the list's casing.
impl<T: Cased> Cased for Vec<T> {
    type Camel = Vec<T::Camel>;

    fn to_camel(self) -> Self::Camel {
        self.into_iter().map(T::to_camel).collect()
    }

    fn from_camel(camel: Self::Camel) -> Self {
        camel.into_iter().map(T::from_camel).collect()
    }
}

/// A body or a query string read in the casing of generation `D`: `JsonBody<Spelled<V1, T>>`
/// reads `T`'s camelCase twin, so missing or mistyped fields are named as v1 names them.
pub struct Spelled<D, T>(pub T, pub PhantomData<fn() -> D>);

impl<'de, D: Generation, T> Deserialize<'de> for Spelled<D, T>
where
    T: Cased + Deserialize<'de>,
    T::Camel: Deserialize<'de>,
{
    fn deserialize<De: Deserializer<'de>>(de: De) -> Result<Self, De::Error> {
        let value = match D::DIALECT {
            Dialect::V1 => T::from_camel(T::Camel::deserialize(de)?),
            Dialect::V2 => T::deserialize(de)?,
        };
        Ok(Spelled(value, PhantomData))
    }
}

/// Defines a wire struct once, as v2 spells it, and its camelCase twin for v1:
///
/// ```ignore
/// cased! {
///     #[derive(Debug, Deserialize)]
///     pub struct Refund / RefundCamel {
///         pub transaction_id: String,
///         pub collection_id: String => "collection",
///     }
/// }
/// ```
///
/// `=> "name"` gives v1 a name that is not the camelCase of v2's (the reference chose them
/// apart; `Generation::field` spells them the same way in errors). Generics are lifetimes and
/// type parameters without bounds; a field whose type depends on the generation is one of them.
macro_rules! cased {
    (
        $(#[$meta:meta])*
        pub struct $name:ident $(<$($generic:tt),+>)? / $camel:ident {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident : $ty:ty $(=> $v1_name:literal)?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name $(<$($generic),+>)? {
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        $(#[$meta])*
        #[serde(rename_all = "camelCase")]
        pub struct $camel $(<$($generic),+>)? {
            $( $(#[$field_meta])* $(#[serde(rename = $v1_name)])? pub $field: $ty, )*
        }

        impl $(<$($generic),+>)? $crate::api::cased::Cased for $name $(<$($generic),+>)? {
            type Camel = $camel $(<$($generic),+>)?;

            fn to_camel(self) -> Self::Camel {
                $camel { $( $field: self.$field, )* }
            }

            fn from_camel(camel: Self::Camel) -> Self {
                $name { $( $field: camel.$field, )* }
            }
        }
    };
}

pub(crate) use cased;

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use super::{Cased, Spelled};
    use crate::api::dialect::Generation;
    use crate::api::v1::V1;
    use crate::api::v2::V2;

    #[derive(Serialize)]
    struct Tail {
        last_one: u8,
    }

    cased! {
        #[derive(Debug, Serialize, Deserialize)]
        pub struct Shape<T> / ShapeCamel {
            pub first_field: u8,
            pub named_apart: u8 => "other",
            #[serde(flatten)]
            pub tail: T,
        }
    }

    fn written<D: Generation>() -> String {
        let shape = Shape {
            first_field: 1,
            named_apart: 2,
            tail: Tail { last_one: 3 },
        };
        serde_json::to_string(&D::cased(shape)).unwrap()
    }

    #[test]
    fn a_cased_type_is_written_in_each_generations_casing_in_the_order_defined() {
        assert_eq!(written::<V1>(), r#"{"firstField":1,"other":2,"last_one":3}"#);
        assert_eq!(written::<V2>(), r#"{"first_field":1,"named_apart":2,"last_one":3}"#);
    }

    #[test]
    fn a_cased_type_is_read_in_each_generations_casing_only() {
        let read = |json: &str| {
            serde_json::from_str::<Spelled<V1, Shape<serde_json::Value>>>(json).map(|s| s.0.to_camel().named_apart)
        };
        assert_eq!(read(r#"{"firstField":1,"other":2}"#).ok(), Some(2));
        assert!(read(r#"{"first_field":1,"named_apart":2}"#).is_err());
        let read =
            |json: &str| serde_json::from_str::<Spelled<V2, Shape<serde_json::Value>>>(json).map(|s| s.0.named_apart);
        assert_eq!(read(r#"{"first_field":1,"named_apart":2}"#).ok(), Some(2));
        assert!(read(r#"{"firstField":1,"other":2}"#).is_err());
    }
}
