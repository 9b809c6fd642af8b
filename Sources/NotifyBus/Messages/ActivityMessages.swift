/// The application is about to stop being active: an interruption (control
/// centre, a call) or the first step of leaving for the background.
public struct WillResignActive: MainActorMessage, Equatable {
    public static let name = "willResignActive"
    public init() {}
}

/// The application became active: after launch, after an interruption, and
/// as the last step of coming back from the background.
public struct DidBecomeActive: MainActorMessage, Equatable {
    public static let name = "didBecomeActive"
    public init() {}
}

/// The application is in the background; always preceded by ``WillResignActive``.
public struct DidEnterBackground: MainActorMessage, Equatable {
    public static let name = "didEnterBackground"
    public init() {}
}

/// The application is coming back; always followed by ``DidBecomeActive``.
public struct WillEnterForeground: MainActorMessage, Equatable {
    public static let name = "willEnterForeground"
    public init() {}
}
