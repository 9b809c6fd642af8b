import UIKit

// No observer word in this file: it is read in outline, with its function bodies blanked.
protocol Refreshing: AnyObject {
    func refresh()
    func title(for index: Int) -> String
}

extension Notification.Name {
    static let libraryChanged = Notification.Name("LibraryChanged")
}

final class LibraryViewController: BaseListViewController, Refreshing {
    static let pageSize = 20
    private var rows: [String] = []
    lazy var formatter: DateFormatter = {
        func make() -> DateFormatter { DateFormatter() }
        return make()
    }()

    init?(rows: [String] = { ["}"] }()) {
        self.rows = rows
        super.init(nibName: nil, bundle: nil)
    }

    required init?(coder: NSCoder) { nil }

    deinit { print("gone: \(rows.count) rows, \("}")") }

    func refresh() {
        let quoted = #"a } brace, \#(rows.count) rows"#
        let block = """
            { an open brace in a multi-line string
            """
        /* a comment with a } /* nested { */ inside */
        let pattern = #/\}+/#
        print(quoted, block, pattern, rows.filter { $0.contains("{") })
    }

    func title(for index: Int) -> String where Self: AnyObject {
        index < rows.count ? rows[index] : "\(index) of \(rows.count)"
    }
}
