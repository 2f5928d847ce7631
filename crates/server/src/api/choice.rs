//! A string field whose allowed values the OpenAPI document lists, so the generated web
//! types carry them as a union, while the handler still reads whatever came and answers a
//! value outside the list with its own Korean message (a plain enum would be refused before
//! the handler, with the generic one).

use std::borrow::Cow;
use std::marker::PhantomData;

use poem_openapi::registry::{MetaSchema, MetaSchemaRef};
use poem_openapi::types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type};
use serde_json::Value;

/// The allowed values of a [`Choice`], in the order the document lists them.
pub trait Choices: Send + Sync + 'static {
    const VALUES: &'static [&'static str];
}

/// The gender of the sign-up form.
pub struct GenderChoices;

impl Choices for GenderChoices {
    const VALUES: &'static [&'static str] = &["남성", "여성"];
}

/// The moods of the feedback after a chat.
pub struct EmotionChoices;

impl Choices for EmotionChoices {
    const VALUES: &'static [&'static str] = &["기뻐요", "괜찮아요", "슬퍼요", "행복해요", "화나요"];
}

/// A string documented as one of `T::VALUES`, read as it came.
pub struct Choice<T>(String, PhantomData<T>);

impl<T> Choice<T> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<T> Default for Choice<T> {
    fn default() -> Self {
        Self(String::new(), PhantomData)
    }
}

impl<T> std::fmt::Debug for Choice<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Choices> Type for Choice<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = String;
    type RawElementValueType = String;

    fn name() -> Cow<'static, str> {
        "string".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            enum_items: T::VALUES.iter().map(|v| Value::from(*v)).collect(),
            ..MetaSchema::new("string")
        }))
    }

    fn as_raw_value(&self) -> Option<&String> {
        Some(&self.0)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a String> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

impl<T: Choices> ParseFromJSON for Choice<T> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value.unwrap_or_default() {
            Value::String(s) => Ok(Self(s, PhantomData)),
            Value::Null => Ok(Self::default()),
            other => Err(ParseError::expected_type(other)),
        }
    }
}

impl<T: Choices> ToJSON for Choice<T> {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

#[cfg(test)]
mod tests {
    use telepathy_domain::{Emotion, Gender};

    use super::*;

    /// The document lists exactly what the domain accepts.
    #[test]
    fn the_listed_values_are_the_domain_values() {
        for v in GenderChoices::VALUES {
            assert!(Gender::parse(v).is_ok(), "{v}");
        }
        let emotions: Vec<&str> = Emotion::ALL.iter().map(|e| e.as_korean()).collect();
        let mut listed = EmotionChoices::VALUES.to_vec();
        let mut known = emotions.clone();
        listed.sort_unstable();
        known.sort_unstable();
        assert_eq!(listed, known);
    }

    #[test]
    fn anything_is_read_and_left_to_the_handler() {
        let c = Choice::<GenderChoices>::parse_from_json(Some(Value::from("모름"))).unwrap();
        assert_eq!(c.as_str(), "모름");
        assert_eq!(
            Choice::<GenderChoices>::parse_from_json(None)
                .unwrap()
                .as_str(),
            ""
        );
        assert!(Choice::<GenderChoices>::parse_from_json(Some(Value::from(3))).is_err());
    }
}
