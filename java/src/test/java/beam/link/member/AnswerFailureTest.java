package beam.link.member;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A joined node's failed answer to the head names its cause, not the future that wrapped it. */
class AnswerFailureTest {
    @Test
    void whyNamesTheCauseNotTheWrapper() {
        var failed = CompletableFuture.failedFuture(new IllegalStateException("no such pid")).thenApply(x -> x);
        Throwable t = failed.handle((r, e) -> e).join();
        assertThat(MemberLinkToHead.why(t)).isEqualTo("no such pid");
    }

    @Test
    void aFailureWithoutAMessageIsNamedByItsType() {
        assertThat(MemberLinkToHead.why(new IllegalStateException())).isEqualTo("IllegalStateException");
    }
}
