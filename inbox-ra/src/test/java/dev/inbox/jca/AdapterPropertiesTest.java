package dev.inbox.jca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import dev.inbox.SubscriptionOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** ra.xml declares the adapter's properties as the options declare them, and writes no default of its own. */
class AdapterPropertiesTest {

    private static Map<String, Element> declared() throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        var document = factory.newDocumentBuilder()
                .parse(Path.of("..", "inbox-rar", "src", "main", "ra", "ra.xml").toFile());
        NodeList properties = document.getElementsByTagNameNS("*", "config-property");
        Map<String, Element> byName = new LinkedHashMap<>();
        for (int i = 0; i < properties.getLength(); i++) {
            Element property = (Element) properties.item(i);
            byName.put(text(property, "config-property-name"), property);
        }
        return byName;
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagNameNS("*", tag);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().trim();
    }

    @Test
    void everyBrokerWideOptionIsAPropertyAndNoPropertyHasAValue() throws Exception {
        Map<String, Element> properties = declared();
        Set<String> expected = new LinkedHashSet<>(Set.of("DataSource", "DrainTimeout", "PauseTable",
                "ConnectionPooler"));
        SubscriptionOption.all().stream().filter(SubscriptionOption::brokerWide)
                .forEach(option -> expected.add(option.adapterProperty()));
        assertThat(properties.keySet()).containsExactlyInAnyOrderElementsOf(expected);
        for (Map.Entry<String, Element> property : properties.entrySet()) {
            assertThat(text(property.getValue(), "config-property-value")).as(property.getKey()).isNull();
            Class<?> type = Class.forName(text(property.getValue(), "config-property-type"));
            assertThat(InboxResourceAdapter.class.getMethod("set" + property.getKey(), type)).isNotNull();
        }
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            if (option.brokerWide()) {
                assertThat(text(properties.get(option.adapterProperty()), "description"))
                        .contains("option " + option.name()).contains("default " + option.defaultValue()
                                .toString().replace("PT30S", "30s").replace("PT1S", "1s"));
            }
        }
    }

    @Test
    void aBadPropertyValueFailsNamingTheProperty() {
        InboxResourceAdapter adapter = new InboxResourceAdapter();
        assertThatThrownBy(() -> adapter.setLease("forever")).isInstanceOf(InboxException.class)
                .hasMessageContaining("resource adapter property Lease").hasMessageContaining("forever");
        assertThatThrownBy(() -> adapter.setPauseTable("paused; DROP TABLE x")).isInstanceOf(InboxException.class)
                .hasMessageContaining("is not a plain identifier");
        adapter.setPauseTable(" ops.paused_queues ");
        assertThat(adapter.getPauseTable()).isEqualTo("ops.paused_queues");
        adapter.setPollInterval("250ms");
        assertThat(adapter.getPollInterval()).isEqualTo("250ms");
        assertThat(adapter.getLease()).isNull();
        assertThatThrownBy(() -> adapter.setDrainTimeout("-PT5S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource adapter property DrainTimeout = -PT5S is negative");
        assertThatThrownBy(() -> adapter.setDrainTimeout("soon")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource adapter property DrainTimeout: 'soon' is not a duration");
        adapter.setDrainTimeout(" 0s ");
        assertThat(adapter.getDrainTimeout()).isEqualTo("0s");
        assertThatThrownBy(() -> adapter.setConnectionPooler("pgbouncer")).isInstanceOf(InboxException.class)
                .hasMessageContaining("resource adapter property ConnectionPooler = pgbouncer names no pooler")
                .hasMessageContaining("transaction (pool_mode=transaction)");
        adapter.setConnectionPooler(" Transaction ");
        assertThat(adapter.getConnectionPooler()).isEqualTo("transaction");
    }

    @Test
    void theActivationSpecHasAPropertyForEveryOptionAndRaXmlDeclaresTheListener() throws Exception {
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            String property = option.adapterProperty(); // the @Inbound attribute, capitalised
            assertThat(InboxActivationSpec.class.getMethod("set" + property, String.class)).as(option.name()).isNotNull();
            assertThat(InboxActivationSpec.class.getMethod("get" + property)).as(option.name()).isNotNull();
        }
        var factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        var document = factory.newDocumentBuilder()
                .parse(Path.of("..", "inbox-rar", "src", "main", "ra", "ra.xml").toFile());
        assertThat(document.getElementsByTagNameNS("*", "messagelistener-type").item(0).getTextContent().trim())
                .isEqualTo(dev.inbox.InboxListener.class.getName());
        assertThat(document.getElementsByTagNameNS("*", "activationspec-class").item(0).getTextContent().trim())
                .isEqualTo(InboxActivationSpec.class.getName());
        // How applications reach the adapter: the administered object the server binds in JNDI.
        assertThat(document.getElementsByTagNameNS("*", "adminobject-interface").item(0).getTextContent().trim())
                .isEqualTo(InboxAdapter.class.getName());
        assertThat(document.getElementsByTagNameNS("*", "adminobject-class").item(0).getTextContent().trim())
                .isEqualTo(InboxAdapterObject.class.getName());
        assertThat(InboxAdapter.class).isAssignableFrom(InboxAdapterObject.class);
    }
}
