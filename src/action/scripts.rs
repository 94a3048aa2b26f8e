//! The functions actions run in the page (`src/page/action/*.js`, embedded by [`crate::page`]).

pub use crate::page::{
    call_expression, CONTAINS_NODE, DELETE_SELECTION, DESCRIBE_ELEMENT, ELEMENT_STATE, POPUP_ROOT, PREPARE_FILL, READ_VALUE, SCROLL_PAGE, SELECT_OPTION,
    SETTLE, SET_VALUE,
};
