import StrokeRecognition

extension Worker {
    // MARK: - Reloading (SIGHUP)

    /// Reads again what can be reloaded (SIGHUP): the template library files (`reloadLibraries()`) and the
    /// authorized client keys (`reloadAuthorizedKeys()`), whichever the worker was given.
    public func reload() {
        configuration.systemd?.notify(SystemdNotifier.reloadingState())
        defer { configuration.systemd?.notify("READY=1") }
        var reloaded = false
        if !configuration.libraryFiles.isEmpty {
            reloadLibraries()
            reloaded = true
        }
        if authenticator != nil {
            reloadAuthorizedKeys()
            reloaded = true
        }
        if !reloaded { logger.warning("nothing to reload: no --library file and no --curve-authorized-keys file") }
    }

    /// Reads the template library files again (`--library`) and recognizes with them from the next messages on:
    /// lanes take them at their next poll, their helper and publisher threads with the next strokes handed over.
    /// Sessions keep their library and their open strokes. The files must still hold libraries of the same names,
    /// in the same order (sessions refer to libraries by name). A library read from a pipe (`--library <(curl …)`)
    /// was read whole at the start and is kept as it was: read again, the pipe held nothing, or had no writer and
    /// held the reload up for good, and the files beside it could never be reloaded.
    ///
    /// - Returns: whether the libraries were replaced; false without library files, or when a file cannot be
    ///   read, a library is invalid or a name changed (the previous libraries stay, and the error is logged).
    @discardableResult
    public func reloadLibraries() -> Bool {
        reloading.withLock { _ in
            guard !configuration.libraryFiles.isEmpty else {
                logger.warning("no --library file to reload")
                return false
            }
            do {
                let started = configuration.libraries
                let pipes = configuration.libraryFiles.indices.filter {
                    started.indices.contains($0)
                        && RecognitionError.nonRegularKind(of: configuration.libraryFiles[$0]) != nil
                }
                let loaded = try configuration.libraryFiles.indices.map { index throws(RecognitionError) in
                    pipes.contains(index)
                        ? started[index] : try TemplateLibrary(contentsOf: configuration.libraryFiles[index])
                }
                if !pipes.isEmpty {
                    logger.info(
                        "template libraries read from pipes kept as read at the start",
                        ["files": pipes.map { configuration.libraryFiles[$0] }.joined(separator: ",")])
                }
                let names = libraries.registry.entries.dropFirst().map(\.name)
                guard loaded.map(\.name) == names else {
                    throw RecognitionError(
                        .invalidConfiguration,
                        "the files now hold libraries named \(loaded.map(\.name)), not \(names): a reload keeps "
                            + "the names (restart the worker to rename)")
                }
                let before = libraries.registry.entries.dropFirst().map(\.own.library.templates.count)
                libraries.replace(
                    try LibraryRegistry(
                        [try TemplateLibrary.builtIn()] + loaded, configuration: configuration.recognizer))
                logger.info(
                    "template libraries reloaded",
                    Dictionary(uniqueKeysWithValues: loaded.map { ($0.name, "\($0.templates.count) templates") }))
                // A library left with no templates is allowed (its sessions match what they learn), but one that
                // had some is more likely a file written wrong: its sessions now answer every stroke with nomatch.
                for (library, count) in zip(loaded, before) where library.templates.isEmpty && count > 0 {
                    logger.warning(
                        "template library reloaded with no templates: its sessions match only the gestures they learn",
                        ["library": library.name, "templatesBefore": "\(count)"])
                }
                if let unused = libraries.registry.checkmarkGestureWarning(configuration.recognizer) {
                    logger.warning(unused)
                }
                return true
            } catch {
                logger.error("template libraries not reloaded, the previous ones stay: \(error)")
                return false
            }
        }
    }

    /// Reads the authorized client keys file again (`--curve-authorized-keys`; SIGHUP): its keys alone are
    /// admitted from the next handshake on. A producer connected with a revoked key is cut at its next message, by
    /// the lane or the input proxy that reads it (`ConnectionVetting`); a consumer connected with one is cut at once,
    /// by the owner of the output socket (`SubscriberVetting`).
    ///
    /// - Returns: whether the list was replaced; false without such a file, or when it cannot be read or has a
    ///   bad line (the previous list stays, and the error is logged).
    @discardableResult
    public func reloadAuthorizedKeys() -> Bool {
        guard let authenticator else {
            logger.warning("no --curve-authorized-keys file to reload")
            return false
        }
        return authenticator.reload()
    }
}
