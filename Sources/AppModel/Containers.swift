import NotifyBus

/// UIKit's `UIApplication.State`, plus the state before launch.
public enum ApplicationState: String, Sendable, Codable, CaseIterable {
    case notRunning, active, inactive, background
}

/// How a screen is presented modally.
public enum PresentationStyle: String, Sendable, Codable, CaseIterable {
    /// Covers everything: the presenting screens disappear.
    case fullScreen
    /// A card over the presenter, which stays on screen and gets no callbacks.
    case pageSheet
    /// A custom transition (seed 001). Like UIKit's default
    /// `shouldRemovePresentersView == false`, the presenter stays on screen.
    case custom
}

/// The root of the window: a screen, a navigation stack, or tabs of those.
public indirect enum RootNode {
    case screen(Screen)
    /// A navigation stack with these screens, bottom first.
    case navigation([Screen])
    case tabs([RootNode], selected: Int)
}

/// The application object: the last responder, and the owner of app-wide lifecycle events.
final class ApplicationObject: TraceLabeled {
    let traceLabel = "Application"
}

/// A navigation stack (`UINavigationController`).
final class NavigationController: TraceLabeled {
    var screens: [Screen]
    let traceLabel: String

    init(screens: [Screen]) {
        self.screens = screens
        traceLabel = "Navigation(\(screens.first?.name ?? ""))"
    }

    var top: Screen { screens[screens.count - 1] }
}

/// A tab bar (`UITabBarController`).
final class TabBarController: TraceLabeled {
    var tabs: [Node]
    var selected: Int
    let traceLabel = "Tabs"

    init(tabs: [Node], selected: Int) {
        self.tabs = tabs
        self.selected = selected
    }
}

/// A node of the hierarchy.
enum Node {
    case screen(Screen)
    case navigation(NavigationController)
    case tabs(TabBarController)

    /// The screen the user sees in this node.
    var leaf: Screen {
        switch self {
        case .screen(let screen): screen
        case .navigation(let navigation): navigation.top
        case .tabs(let tabs): tabs.tabs[tabs.selected].leaf
        }
    }

    /// Every screen in the node, in tree order.
    var screens: [Screen] {
        switch self {
        case .screen(let screen): [screen]
        case .navigation(let navigation): navigation.screens
        case .tabs(let tabs): tabs.tabs.flatMap(\.screens)
        }
    }
}

/// A modal presentation: the presented screen lives in a navigation stack of its own.
struct Presentation {
    let navigation: NavigationController
    let style: PresentationStyle
    let duration: Double
}
