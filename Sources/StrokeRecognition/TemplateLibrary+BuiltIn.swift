extension TemplateLibrary {
    /// The built-in library: the 16 gestures of the $1 study. Placeholder until generated.
    public static var builtIn: TemplateLibrary { TemplateLibrary(name: "default") }
}
