package org.tandembroker.core.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.ConfigException;

class AccessRulesTest {
    private static final Path FILE = Path.of("etc/permissions");

    private static AccessRules parse(String... lines) throws ConfigException {
        return AccessRules.parse(FILE, List.of(lines));
    }

    @Test
    void grantsApplyToTheUserItsGroupsAndEveryoneOnMatchingAddressesOnly() throws Exception {
        AccessRules rules = parse(
                "# comment",
                "group apps orders-service billing",
                "allow group:apps send,consume orders.# invoices.*",
                "allow user:auditor browse #",
                "allow everyone consume news.#",
                "allow user:guest all #");

        assertThat(rules.allows("billing", Permission.SEND, "orders.eu.paris")).isTrue();
        assertThat(rules.allows("billing", Permission.CONSUME, "invoices.2026")).isTrue();
        assertThat(rules.allows("billing", Permission.SEND, "invoices.2026.q1")).isFalse();
        assertThat(rules.allows("billing", Permission.CREATE, "orders.eu")).isFalse();
        assertThat(rules.allows("stranger", Permission.CONSUME, "news.sport")).isTrue();
        assertThat(rules.allows("stranger", Permission.SEND, "news.sport")).isFalse();
        assertThat(rules.allows("auditor", Permission.BROWSE, "anything/at.all")).isTrue();
        assertThat(rules.allows("guest", Permission.MANAGE, "x")).isTrue();
        assertThat(rules.groupsOf("billing")).containsExactly("apps");
    }

    @Test
    void everyMistakeIsReportedOnItsOwnLineWithFileLineValueAndWhatIsAllowed() {
        assertThatThrownBy(() -> parse(
                "group apps a b",
                "group apps c",
                "allow group:apps sned,consume orders.*",
                "allow group:nobody send orders.*",
                "allow somebody send #",
                "allow user:x send orders.a*",
                "permit user:x send #",
                "allow user:x send"))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> {
                    List<String> lines = e.getMessage().lines().toList();
                    assertThat(lines).hasSize(7);
                    assertThat(lines.get(0)).startsWith(FILE + ":2: ").contains("group 'apps' is already defined on "
                            + "line 1");
                    assertThat(lines.get(1)).startsWith(FILE + ":3: ").contains("unknown permission 'sned'",
                            "allowed: send, consume, browse, create, delete, manage, all");
                    assertThat(lines.get(2)).startsWith(FILE + ":4: ").contains("group 'nobody' is not defined",
                            "apps");
                    assertThat(lines.get(3)).startsWith(FILE + ":5: ").contains("unknown grantee 'somebody'",
                            "user:NAME, group:NAME, everyone");
                    assertThat(lines.get(4)).startsWith(FILE + ":6: ").contains("invalid address pattern 'orders.a*'",
                            "whole words");
                    assertThat(lines.get(5)).startsWith(FILE + ":7: ").contains("unknown line 'permit'");
                    assertThat(lines.get(6)).startsWith(FILE + ":8: ").contains("incomplete");
                });
    }

    @Test
    void addressPatternsUseTopicWildcardsOverDotAndSlashSeparatedWords() {
        AddressPattern oneWord = AddressPattern.parse("orders.*");
        AddressPattern anyDepth = AddressPattern.parse("orders.#");
        AddressPattern middle = AddressPattern.parse("a.#.z");

        assertThat(oneWord.matches("orders.eu")).isTrue();
        assertThat(oneWord.matches("orders")).isFalse();
        assertThat(oneWord.matches("orders.eu.paris")).isFalse();
        assertThat(anyDepth.matches("orders")).isTrue();
        assertThat(anyDepth.matches("orders.eu.paris")).isTrue();
        assertThat(anyDepth.matches("ordersX.eu")).isFalse();
        assertThat(AddressPattern.parse("#").matches("anything.at/all")).isTrue();
        assertThat(AddressPattern.parse("amq.topic/#").matches("amq.topic/orders.eu")).isTrue();
        assertThat(middle.matches("a.z")).isTrue();
        assertThat(middle.matches("a.b.c.z")).isTrue();
        assertThat(middle.matches("a.b.c")).isFalse();
        assertThat(AddressPattern.parse("Orders").matches("orders")).isFalse();
    }
}
