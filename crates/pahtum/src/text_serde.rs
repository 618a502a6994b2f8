//! Serde for the types whose JSON form is their text (a cell `"d4"`, an action `"#d4"` or `"swap"`):
//! written with `Display`, read with `FromStr` straight from the JSON text, without copying it into a
//! `String` first (a journal holds millions of cells). One visitor for all of them, so that they are
//! read and refused alike.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

/// Writes `value` as its text.
pub(crate) fn serialize<T: fmt::Display, S: serde::Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Reads a `T` from its text; `expecting` says what the text should look like, for the error.
pub(crate) fn deserialize<'de, T, D>(deserializer: D, expecting: &'static str) -> Result<T, D::Error>
where
    T: FromStr,
    T::Err: fmt::Display,
    D: serde::Deserializer<'de>,
{
    struct Text<T> {
        expecting: &'static str,
        read: PhantomData<T>,
    }
    impl<T: FromStr> serde::de::Visitor<'_> for Text<T>
    where
        T::Err: fmt::Display,
    {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.expecting)
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
            text.parse().map_err(E::custom)
        }
    }
    deserializer.deserialize_str(Text {
        expecting,
        read: PhantomData,
    })
}
