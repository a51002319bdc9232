package beam.dispatch;

import beam.cluster.ClusterSnapshot;
import beam.codec.Frame;
import beam.protocol.Frames;
import beam.protocol.Request;
import beam.util.ErrorKind;
import beam.views.StateQuery;
import beam.views.StateSummary;
import beam.views.StateTables;
import java.util.ArrayList;
import java.util.List;

/**
 * The state ops of the unix socket ({@code state_list}, {@code state_summary}): the query runs
 * here, in the daemon, and only the page asked for goes back, with the counts the CLI needs to
 * say what it left out. Bad input comes back as an {@code invalid_request} error naming the
 * valid choices.
 */
final class StateRequests {
    /** The tables the socket serves. */
    static final StateTables TABLES = StateTables.standard();

    private StateRequests() {
    }

    static Frame list(Request.StateList l, ClusterSnapshot snapshot) {
        try {
            int limit = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, l.limit())); // the engine bounds it
            List<StateQuery.Filter> filters = new ArrayList<>(StateQuery.filters(l.filters()));
            if (l.id() != null) filters.add(new StateQuery.Filter(TABLES.table(l.table()).idColumn(), "=", l.id()));
            StateQuery query = new StateQuery(l.table(), filters, limit, l.detail());
            return Frames.okWithBody(l.rid(), query.run(TABLES, snapshot));
        } catch (StateQuery.Invalid e) {
            return Frames.error(l.rid(), ErrorKind.INVALID_REQUEST, e.getMessage());
        }
    }

    static Frame summary(Request.StateSummary s, ClusterSnapshot snapshot) {
        try {
            return Frames.okWithBody(s.rid(), StateSummary.of(TABLES, s.table(), StateQuery.filters(s.filters()), snapshot));
        } catch (StateQuery.Invalid e) {
            return Frames.error(s.rid(), ErrorKind.INVALID_REQUEST, e.getMessage());
        }
    }
}
