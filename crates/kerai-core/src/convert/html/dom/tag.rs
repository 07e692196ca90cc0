//! Element names the extractor reasons about, as a small enum (cheap to compare), plus the
//! HTML content-model facts the tree builder needs (void, raw text, block level).

macro_rules! tags {
    ($($variant:ident = $name:literal),* $(,)?) => {
        /// A known HTML element name, or `Other` (the name is then kept on the element).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Tag { $($variant,)* Other }

        impl Tag {
            /// The tag for a lower-case element name.
            pub fn from_name(name: &str) -> Tag {
                match name { $($name => Tag::$variant,)* _ => Tag::Other }
            }

            /// The lower-case element name (`""` for `Other`).
            pub fn name(self) -> &'static str {
                match self { $(Tag::$variant => $name,)* Tag::Other => "" }
            }
        }
    };
}

tags! {
    A = "a", Abbr = "abbr", Address = "address", Area = "area", Article = "article",
    Aside = "aside", Audio = "audio", B = "b", Base = "base", Bdi = "bdi", Bdo = "bdo",
    Blockquote = "blockquote", Body = "body", Br = "br", Button = "button", Canvas = "canvas",
    Caption = "caption", Center = "center", Cite = "cite", Code = "code", Col = "col",
    Colgroup = "colgroup", Data = "data", Dd = "dd", Del = "del", Details = "details",
    Dfn = "dfn", Dialog = "dialog", Dir = "dir", Div = "div", Dl = "dl", Dt = "dt", Em = "em",
    Embed = "embed", Fieldset = "fieldset", Figcaption = "figcaption", Figure = "figure",
    Font = "font", Footer = "footer", Form = "form", Frame = "frame", Frameset = "frameset",
    H1 = "h1", H2 = "h2", H3 = "h3", H4 = "h4", H5 = "h5", H6 = "h6", Head = "head",
    Header = "header", Hgroup = "hgroup", Hr = "hr", Html = "html", I = "i", Iframe = "iframe",
    Img = "img", Input = "input", Ins = "ins", Kbd = "kbd", Keygen = "keygen", Label = "label",
    Legend = "legend", Li = "li", Link = "link", Main = "main", Map = "map", Mark = "mark",
    Math = "math", Menu = "menu", Meta = "meta", Meter = "meter", Nav = "nav",
    Noembed = "noembed", Noframes = "noframes", Noscript = "noscript", Object = "object",
    Ol = "ol", Optgroup = "optgroup", Option = "option", Output = "output", P = "p",
    Param = "param", Picture = "picture", Plaintext = "plaintext", Pre = "pre",
    Progress = "progress", Q = "q", Rp = "rp", Rt = "rt", Ruby = "ruby", S = "s", Samp = "samp",
    Script = "script", Section = "section", Select = "select", Small = "small",
    Source = "source", Span = "span", Strike = "strike", Strong = "strong", Style = "style",
    Sub = "sub", Summary = "summary", Sup = "sup", Svg = "svg", Table = "table",
    Tbody = "tbody", Td = "td", Template = "template", Textarea = "textarea", Tfoot = "tfoot",
    Th = "th", Thead = "thead", Time = "time", Title = "title", Tr = "tr", Track = "track",
    Tt = "tt", U = "u", Ul = "ul", Var = "var", Video = "video", Wbr = "wbr", Xmp = "xmp",
}

impl Tag {
    /// Elements that never have children (`<br>`, `<img>`, ...).
    pub fn is_void(self) -> bool {
        matches!(
            self,
            Tag::Area
                | Tag::Base
                | Tag::Br
                | Tag::Col
                | Tag::Embed
                | Tag::Hr
                | Tag::Img
                | Tag::Input
                | Tag::Keygen
                | Tag::Link
                | Tag::Meta
                | Tag::Param
                | Tag::Source
                | Tag::Track
                | Tag::Wbr
                | Tag::Frame
        )
    }

    /// Elements whose content is raw text up to the matching end tag.
    pub fn is_raw_text(self) -> bool {
        matches!(
            self,
            Tag::Script
                | Tag::Style
                | Tag::Textarea
                | Tag::Title
                | Tag::Xmp
                | Tag::Iframe
                | Tag::Noembed
                | Tag::Noframes
                | Tag::Noscript
                | Tag::Plaintext
        )
    }

    /// Raw-text elements whose character references are decoded (RCDATA).
    pub fn decodes_entities(self) -> bool {
        matches!(self, Tag::Textarea | Tag::Title)
    }

    /// The formatting elements the HTML5 tree builder keeps in its list of active formatting
    /// elements (`big` and `nobr` are not [`Tag`]s).
    pub fn is_formatting(self) -> bool {
        matches!(
            self,
            Tag::A
                | Tag::B
                | Tag::Code
                | Tag::Em
                | Tag::Font
                | Tag::I
                | Tag::S
                | Tag::Small
                | Tag::Strike
                | Tag::Strong
                | Tag::Tt
                | Tag::U
        )
    }

    /// Headings `h1`..`h6` and their level.
    pub fn heading_level(self) -> Option<u8> {
        match self {
            Tag::H1 => Some(1),
            Tag::H2 => Some(2),
            Tag::H3 => Some(3),
            Tag::H4 => Some(4),
            Tag::H5 => Some(5),
            Tag::H6 => Some(6),
            _ => None,
        }
    }

    /// Start tags that close an open `<p>` (HTML's "close a p element" list).
    pub fn closes_p(self) -> bool {
        matches!(
            self,
            Tag::Address
                | Tag::Article
                | Tag::Aside
                | Tag::Blockquote
                | Tag::Center
                | Tag::Details
                | Tag::Dialog
                | Tag::Dir
                | Tag::Div
                | Tag::Dl
                | Tag::Fieldset
                | Tag::Figcaption
                | Tag::Figure
                | Tag::Footer
                | Tag::Form
                | Tag::H1
                | Tag::H2
                | Tag::H3
                | Tag::H4
                | Tag::H5
                | Tag::H6
                | Tag::Header
                | Tag::Hgroup
                | Tag::Hr
                | Tag::Main
                | Tag::Menu
                | Tag::Nav
                | Tag::Ol
                | Tag::P
                | Tag::Pre
                | Tag::Section
                | Tag::Summary
                | Tag::Table
                | Tag::Ul
                | Tag::Li
                | Tag::Dd
                | Tag::Dt
                | Tag::Plaintext
                | Tag::Xmp
        )
    }

    /// Block-level elements: text on either side of them belongs to different blocks.
    pub fn is_block(self) -> bool {
        self.closes_p()
            || matches!(
                self,
                Tag::Br
                    | Tag::Body
                    | Tag::Html
                    | Tag::Caption
                    | Tag::Legend
                    | Tag::Tr
                    | Tag::Td
                    | Tag::Th
                    | Tag::Tbody
                    | Tag::Thead
                    | Tag::Tfoot
                    | Tag::Option
                    | Tag::Select
                    | Tag::Textarea
                    | Tag::Frameset
                    | Tag::Noscript
                    | Tag::Iframe
                    | Tag::Video
                    | Tag::Audio
                    | Tag::Canvas
                    | Tag::Object
                    | Tag::Picture
            )
    }

    /// Elements that end the search for an open element of the same kind (a scope boundary).
    pub fn is_scope_boundary(self) -> bool {
        matches!(
            self,
            Tag::Table
                | Tag::Td
                | Tag::Th
                | Tag::Caption
                | Tag::Html
                | Tag::Template
                | Tag::Object
                | Tag::Button
                | Tag::Svg
                | Tag::Math
        )
    }
}
