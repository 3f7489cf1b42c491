package org.tandembroker.core.selector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectorTest {
    private static final Map<String, Object> MESSAGE = new HashMap<>();

    static {
        MESSAGE.put("color", "red");
        MESSAGE.put("size", 7);
        MESSAGE.put("weight", 2.5f);
        MESSAGE.put("big", 10_000_000_000L);
        MESSAGE.put("urgent", true);
        MESSAGE.put("code", "50%_off");
        MESSAGE.put("JMSPriority", 4);
    }

    private static boolean selects(String selector) throws SelectorException {
        return Selector.parse(selector).matches(MESSAGE::get);
    }

    @Test
    void comparesNumbersAcrossTypesAndStringsAndBooleansByEquality() throws Exception {
        assertThat(selects("size = 7")).isTrue();
        assertThat(selects("size > 6.5 AND size <= 7")).isTrue();
        assertThat(selects("weight < 3")).isTrue();
        assertThat(selects("big > 9999999999")).isTrue();
        assertThat(selects("color = 'red'")).isTrue();
        assertThat(selects("color <> 'blue'")).isTrue();
        assertThat(selects("urgent")).isTrue();
        assertThat(selects("urgent = FALSE")).isFalse();
        assertThat(selects("JMSPriority >= 4")).isTrue();
    }

    @Test
    void arithmeticFollowsPrecedenceAndDivisionByZeroIsUnknown() throws Exception {
        assertThat(selects("size * 2 + 1 = 15")).isTrue();
        assertThat(selects("size - 2 * 3 = 1")).isTrue();
        assertThat(selects("(size - 2) * 3 = 15")).isTrue();
        assertThat(selects("-size = -7")).isTrue();
        assertThat(selects("size / 2 = 3")).isTrue();
        assertThat(selects("size / 2.0 = 3.5")).isTrue();
        assertThat(selects("size / 0 = 1")).isFalse();
        assertThat(selects("NOT (size / 0 = 1)")).isFalse();
    }

    @Test
    void likeWithWildcardsAndEscape() throws Exception {
        assertThat(selects("color LIKE 'r%'")).isTrue();
        assertThat(selects("color LIKE 'r_d'")).isTrue();
        assertThat(selects("color LIKE 'r_'")).isFalse();
        assertThat(selects("color NOT LIKE 'b%'")).isTrue();
        assertThat(selects("code LIKE '50!%!_off' ESCAPE '!'")).isTrue();
        assertThat(selects("code LIKE '50!%x' ESCAPE '!'")).isFalse();
        assertThat(selects("color LIKE '.*'")).isFalse();
        assertThat(selects("missing LIKE '%'")).isFalse();
        assertThat(selects("missing NOT LIKE '%'")).isFalse();
    }

    @Test
    void inAndBetween() throws Exception {
        assertThat(selects("color IN ('green', 'red')")).isTrue();
        assertThat(selects("color NOT IN ('green', 'red')")).isFalse();
        assertThat(selects("size BETWEEN 5 AND 7")).isTrue();
        assertThat(selects("size NOT BETWEEN 5 AND 7")).isFalse();
        assertThat(selects("size BETWEEN 8 AND 9")).isFalse();
        assertThat(selects("missing IN ('a')")).isFalse();
        assertThat(selects("missing NOT IN ('a')")).isFalse();
    }

    @Test
    void absentValuesAreUnknownUnderThreeValuedLogic() throws Exception {
        assertThat(selects("missing IS NULL")).isTrue();
        assertThat(selects("color IS NOT NULL")).isTrue();
        assertThat(selects("missing = 1")).isFalse();
        assertThat(selects("NOT (missing = 1)")).isFalse();
        assertThat(selects("missing = 1 OR size = 7")).isTrue();
        assertThat(selects("missing = 1 AND size = 7")).isFalse();
        assertThat(selects("NOT (missing = 1 AND size = 8)")).isTrue(); // UNKNOWN AND FALSE is FALSE
        assertThat(selects("NOT (missing = 1 OR size = 8)")).isFalse(); // UNKNOWN OR FALSE is UNKNOWN
    }

    @Test
    void valuesOfDifferentTypesNeverCompareEqual() throws Exception {
        assertThat(selects("color = 7")).isFalse();
        assertThat(selects("NOT (color = 7)")).isFalse();
        assertThat(selects("size = '7'")).isFalse();
        assertThat(selects("color > 1")).isFalse();
    }

    @Test
    void keywordsAreCaseInsensitiveIdentifiersAreNot() throws Exception {
        assertThat(selects("color = 'red' and size between 1 and 9 or false")).isTrue();
        assertThat(selects("Color = 'red'")).isFalse();
    }

    @Test
    void literalsOfEveryForm() throws Exception {
        assertThat(selects("size = 0x7")).isTrue();
        assertThat(selects("size = 7L")).isTrue();
        assertThat(selects("size < 7.1E0")).isTrue();
        assertThat(selects("weight = .25e1")).isTrue();
        assertThat(selects("'it''s' = 'it''s'")).isTrue();
    }

    @Test
    void badSelectorsAreRefusedWithWhatAndWhere() {
        assertThatThrownBy(() -> Selector.parse("color = 'red")).isInstanceOf(SelectorException.class)
                .hasMessageContaining("not closed").hasMessageContaining("position 9");
        assertThatThrownBy(() -> Selector.parse("color == 'red'")).hasMessageContaining("position 8");
        assertThatThrownBy(() -> Selector.parse("size LIKE 5")).hasMessageContaining("string literal pattern");
        assertThatThrownBy(() -> Selector.parse("'a' + 1 = 2")).hasMessageContaining("needs numbers");
        assertThatThrownBy(() -> Selector.parse("color = 'a' AND 5")).hasMessageContaining("AND needs conditions");
        assertThatThrownBy(() -> Selector.parse("'a' < 'b'")).hasMessageContaining("compare only with =");
        assertThatThrownBy(() -> Selector.parse("size + 1")).hasMessageContaining("not a condition");
        assertThatThrownBy(() -> Selector.parse("color IN ()")).hasMessageContaining("IN takes a list of literals");
        assertThatThrownBy(() -> Selector.parse("size BETWEEN 1")).hasMessageContaining("expected AND");
        assertThatThrownBy(() -> Selector.parse("color # 1")).hasMessageContaining("unexpected character '#'");
        assertThatThrownBy(() -> Selector.parse(" ")).hasMessageContaining("empty");
        assertThatThrownBy(() -> Selector.parse("a LIKE 'x!' ESCAPE '!'")).hasMessageContaining("escape");
        assertThatThrownBy(() -> Selector.parse("size = 99999999999999999999")).hasMessageContaining("out of range");
    }
}
